import { CniError, CniErrorCode } from './cni-error.js';

/** The commands of the CNI specification (1.1). */
export type CniCommand = 'ADD' | 'DEL' | 'CHECK' | 'GC' | 'STATUS' | 'VERSION';

/** The CNI_* environment of one invocation. */
export interface CniRequest {
  readonly command: CniCommand;
  readonly containerId: string;
  readonly netns: string;
  readonly ifname: string;
  readonly args: string;
  readonly path: string;
}

/** An environment, as `process.env` is. */
export type Env = Readonly<Record<string, string | undefined>>;

const COMMANDS: readonly CniCommand[] = ['ADD', 'DEL', 'CHECK', 'GC', 'STATUS', 'VERSION'];

/** Which variables each command requires (libcni skel's `getCmdArgsFromEnv`). */
const REQUIRED: Record<string, readonly CniCommand[]> = {
  CNI_CONTAINERID: ['ADD', 'CHECK', 'DEL'],
  CNI_NETNS: ['ADD', 'CHECK'],
  CNI_IFNAME: ['ADD', 'CHECK', 'DEL'],
  CNI_PATH: ['ADD', 'CHECK', 'DEL', 'GC', 'STATUS'],
};

const VALID_ID = /^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/;

function validateInterfaceName(name: string): void {
  const bad = (msg: string): CniError =>
    new CniError(CniErrorCode.InvalidEnvironmentVariables, msg, { details: name });
  if (name === '') throw bad('interface name is empty');
  if (name.length > 15) throw bad('interface name is too long');
  if (name === '.' || name === '..') throw bad('interface name is . or ..');
  if (/[/:\s]/.test(name)) throw bad('interface name contains / or : or whitespace characters');
}

/**
 * Reads the CNI_* variables like libcni's skel: an unknown `CNI_COMMAND` or a missing required
 * variable is `InvalidEnvironmentVariables` (4); a container ID with characters outside
 * `[a-zA-Z0-9_.-]` is 4 too; an invalid interface name is 4. Returns `undefined` when
 * `CNI_COMMAND` is unset (the caller prints the about text).
 */
export function parseCniRequest(env: Env): CniRequest | undefined {
  const command = env['CNI_COMMAND'] ?? '';
  if (command === '') return undefined;
  if (!(COMMANDS as readonly string[]).includes(command)) {
    throw new CniError(CniErrorCode.InvalidEnvironmentVariables, `unknown CNI_COMMAND: ${command}`);
  }
  const cmd = command as CniCommand;
  const missing = Object.entries(REQUIRED)
    .filter(([name, cmds]) => cmds.includes(cmd) && (env[name] ?? '') === '')
    .map(([name]) => name);
  if (missing.length > 0) {
    throw new CniError(
      CniErrorCode.InvalidEnvironmentVariables,
      `required env variables [${missing.join(',')}] missing`,
    );
  }
  const request: CniRequest = {
    command: cmd,
    containerId: env['CNI_CONTAINERID'] ?? '',
    netns: env['CNI_NETNS'] ?? '',
    ifname: env['CNI_IFNAME'] ?? '',
    args: env['CNI_ARGS'] ?? '',
    path: env['CNI_PATH'] ?? '',
  };
  if (request.containerId !== '' && !VALID_ID.test(request.containerId)) {
    throw new CniError(
      CniErrorCode.InvalidEnvironmentVariables,
      'invalid characters in containerID',
      {
        details: request.containerId,
      },
    );
  }
  if (REQUIRED['CNI_IFNAME']!.includes(cmd)) validateInterfaceName(request.ifname);
  return request;
}
