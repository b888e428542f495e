// What netledger-kube-controllers does between argv and an exit status: read the configuration
// (flags, environment, the KubeControllersConfiguration: configure-run.ts), open the store and
// the Kubernetes API (open-ipam.ts), run the controllers until told to stop
// (run-until-stopped.ts), and map every failure to a status and a message.
import type { DatastoreOpenerOptions } from '@netledger/datastore-config';
import { USAGE, errorText, parseRunArgs } from '@netledger/kube-controllers';
import type { ParsedArgs } from '@netledger/kube-controllers';
import { buildControllers } from './build-controllers.js';
import { configureRun } from './configure-run.js';
import { EXIT } from './exit-status.js';
import type { Fail } from './exit-status.js';
import { openIpam } from './open-ipam.js';
import { runUntilStopped } from './run-until-stopped.js';

/** What the process gives the run. */
export interface RunDeps {
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Resolves when the process is told to stop (SIGTERM, SIGINT). */
  readonly stopSignal: Promise<string>;
  readonly opener: DatastoreOpenerOptions;
  readonly version: string;
}

/**
 * Runs netledger-kube-controllers. Exit 0 after a requested stop (or --help/--version), 2 for a
 * bad flag, variable or KubeControllersConfiguration value or an unusable kubeconfig, 1 when
 * the Kubernetes API, the store or the listen address cannot be used.
 */
export async function runKubeControllers(deps: RunDeps): Promise<number> {
  const fail: Fail = (status, message) => {
    deps.stderr(`netledger-kube-controllers: ${message}\n`);
    return status;
  };
  let args: ParsedArgs;
  try {
    args = parseRunArgs(deps.argv, deps.env);
  } catch (e) {
    return fail(EXIT.usage, `${errorText(e)}\n${USAGE}`);
  }
  if (args.help) {
    deps.stdout(USAGE);
    return EXIT.ok;
  }
  if (args.version) {
    deps.stdout(`netledger-kube-controllers ${deps.version}\n`);
    return EXIT.ok;
  }
  const setup = await configureRun(deps, args, fail);
  if (typeof setup === 'number') return setup;
  const opened = await openIpam({ ...setup, opener: deps.opener }, fail);
  if (typeof opened === 'number') return opened;
  let controllers;
  try {
    controllers = buildControllers(setup);
  } catch (e) {
    await opened.mirrored.close();
    return fail(EXIT.usage, errorText(e));
  }
  return runUntilStopped({ setup, opened, controllers, stopSignal: deps.stopSignal }, fail);
}
