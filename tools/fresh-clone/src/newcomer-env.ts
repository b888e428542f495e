import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** What {@link newcomerEnv} needs to know about the machine. */
export interface NewcomerEnvOptions {
  /** The environment of the running test (it is not changed). */
  readonly env: NodeJS.ProcessEnv;
  /** Whether a directory holds a `pnpm` executable (default: looks on disk). */
  readonly hasPnpm?: (dir: string) => boolean;
}

/** Variables a test runner, npm or pnpm set for its children: a newcomer's shell has none. */
const RUNNER_VARIABLE =
  /^(npm_|pnpm_|PNPM_|TURBO_|VITEST|NETLEDGER_)|^(NODE_ENV|NODE_OPTIONS|INIT_CWD|TEST|CI)$/;

/**
 * The environment of a newcomer's shell on this machine: this one without any directory that
 * holds a `pnpm` on PATH and without the variables test runners and package managers set.
 */
export function newcomerEnv(options: NewcomerEnvOptions): NodeJS.ProcessEnv {
  const hasPnpm = options.hasPnpm ?? ((dir: string) => existsSync(join(dir, 'pnpm')));
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(options.env)) {
    if (!RUNNER_VARIABLE.test(name)) env[name] = value;
  }
  env.PATH = (options.env.PATH ?? '')
    .split(delimiter)
    .filter((dir) => dir !== '' && !hasPnpm(dir))
    .join(delimiter);
  return env;
}
