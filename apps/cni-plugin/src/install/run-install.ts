import { CniError } from '@netledger/cni';
import { INSTALL_USAGE, InstallUsageError, parseInstallArgs } from './install-args.js';
import { InstallError, installPlugin } from './install-plugin.js';
import { CLIENT_ENV, staticClientBeside } from './plugin-files.js';

/** What `netledger-ipam install` needs from its process. */
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

/**
 * `netledger-ipam install ARGS`: installs the running plugin (installPlugin), the static client
 * being the one that started it (`NETLEDGER_CLIENT`) or the build's beside the bundle, and prints
 * what it did, one line per file. Returns the exit status: 0, 1 for a failed install (message on
 * stderr), 2 for a usage error (message and usage on stderr).
 */
export function runInstall(argv: readonly string[], io: InstallIo): number {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.print(INSTALL_USAGE);
    return 0;
  }
  try {
    const options = parseInstallArgs(argv, io.cwd);
    const client = io.env[CLIENT_ENV] || staticClientBeside(io.bundleDir);
    if (client === undefined) {
      throw new InstallError(`no static client beside ${io.bundleDir}: run pnpm build`);
    }
    const files = installPlugin(options, { bundleDir: io.bundleDir, client, node: io.node });
    io.print(files.map((f) => `${f.action.padEnd(9)} ${f.path}\n`).join(''));
    if (options.confDir !== undefined) {
      io.print(
        `the example network uses pool ${options.pool}; create it with\n  netledgerctl ippool create --name ${options.network} --cidr ${options.pool}\n`,
      );
    }
    return 0;
  } catch (e) {
    if (e instanceof InstallUsageError) {
      io.printErr(`netledger-ipam install: ${e.message}\n\n${INSTALL_USAGE}`);
      return 2;
    }
    const why = e instanceof InstallError || e instanceof CniError ? e.message : String(e);
    io.printErr(`netledger-ipam install failed: ${why}\n`);
    return 1;
  }
}
