import { CniError } from '../cni-error.js';
import { INSTALL_USAGE, parseInstallArgs } from './install-args.js';
import {
  INSTALL_CNI_USAGE,
  parseInstallCniArgs,
  parseUninstallCniArgs,
} from './install-cni-args.js';
import { installCni } from './install-cni.js';
import type { CniInstallResult } from './install-cni.js';
import { InstallError, InstallUsageError } from './install-error.js';
import { installPlugin } from './install-plugin.js';
import type { InstalledFile } from './place-file.js';
import { CLIENT_ENV, staticClientBeside } from './plugin-files.js';
import { uninstallCni } from './uninstall-cni.js';

/** What the install verbs need from their process. */
export interface InstallIo {
  /** The running bundle's directory, which holds the fallback's files. */
  readonly bundleDir: string;
  readonly env: NodeJS.ProcessEnv;
  /** The Node.js binary running the plugin (`process.execPath`): the fallback's. */
  readonly node: string;
  /** The directory relative paths in the arguments are resolved against (`process.cwd()`). */
  readonly cwd: string;
  readonly print: (text: string) => void;
  readonly printErr: (text: string) => void;
}

/** The verbs of netledger-ipam's Node.js side that lay the plugin down or take it away. */
const VERBS = {
  install: { usage: INSTALL_USAGE, run: install },
  'install-cni': { usage: INSTALL_CNI_USAGE, run: hostInstall },
  'uninstall-cni': { usage: INSTALL_CNI_USAGE, run: hostUninstall },
} as const;
type Verb = keyof typeof VERBS;

const isVerb = (word: string | undefined): word is Verb =>
  word !== undefined && Object.hasOwn(VERBS, word);

const listing = (files: readonly InstalledFile[]): string =>
  files.map((f) => `${f.action.padEnd(9)} ${f.path}\n`).join('');

/** The static client to install: the one that started this process, else the build's. */
function clientOf(io: InstallIo): string {
  const client = io.env[CLIENT_ENV] || staticClientBeside(io.bundleDir);
  if (client === undefined) {
    throw new InstallError(`no static client beside ${io.bundleDir}: run pnpm build`);
  }
  return client;
}

/** `install`: the client and the Node.js fallback into a bin directory (and an example conflist). */
function install(argv: readonly string[], io: InstallIo): void {
  const options = parseInstallArgs(argv, io.cwd);
  const client = clientOf(io);
  const files = installPlugin(options, { bundleDir: io.bundleDir, client, node: io.node });
  io.print(listing(files));
  if (options.confDir !== undefined) {
    io.print(
      `the example network uses pool ${options.pool}; create it with\n  netledgerctl ippool create --name ${options.network} --cidr ${options.pool}\n`,
    );
  }
}

function report(result: CniInstallResult, io: InstallIo): void {
  io.print(listing(result.files));
  for (const note of result.notes) io.printErr(`${note}\n`);
}

/** `install-cni`: the client and a conflist on a node, as Calico's install-cni. */
function hostInstall(argv: readonly string[], io: InstallIo): void {
  const options = parseInstallCniArgs(argv, io.env, io.cwd);
  report(installCni(options, { client: clientOf(io) }), io);
}

/** `uninstall-cni`: what install-cni recorded, where it is still as written. */
function hostUninstall(argv: readonly string[], io: InstallIo): void {
  report(uninstallCni(parseUninstallCniArgs(argv, io.env, io.cwd)), io);
}

/**
 * Runs `netledger-ipam install ARGS` (installPlugin), `install-cni ARGS` (installCni) or
 * `uninstall-cni ARGS` (uninstallCni) when `argv` starts with one of these verbs, printing what it
 * did, one line per file, and notes on stderr; returns the exit status: 0, 1 for a failed install
 * (message on stderr, nothing half-written), 2 for a usage error (message and usage on stderr).
 * Returns undefined when `argv` names no such verb.
 */
export function runInstallVerb(argv: readonly string[], io: InstallIo): number | undefined {
  const [verb, ...args] = argv;
  if (!isVerb(verb)) return undefined;
  const { usage, run } = VERBS[verb];
  if (args.includes('--help') || args.includes('-h')) {
    io.print(usage);
    return 0;
  }
  try {
    run(args, io);
    return 0;
  } catch (e) {
    if (e instanceof InstallUsageError) {
      io.printErr(`netledger-ipam ${verb}: ${e.message}\n\n${usage}`);
      return 2;
    }
    const why = e instanceof InstallError || e instanceof CniError ? e.message : String(e);
    io.printErr(`netledger-ipam ${verb} failed: ${why}\n`);
    return 1;
  }
}
