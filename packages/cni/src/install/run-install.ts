import { CniError } from '../cni-error.js';
import { DEFAULT_AGENT_SOCKET } from '../net-conf.js';
import { InstallError, installPlugin } from './install-plugin.js';
import { INSTALL_USAGE, InstallUsageError, parseInstallArgs } from './install-args.js';
import { pluginSourceDir } from './plugin-files.js';

/** What `netledger-ipam install` needs from its process. */
export interface InstallIo {
  /** The running bundle's directory (the plain entry), which holds the files to install. */
  readonly selfDir?: string;
  /** Node's options (`process.execArgv`): a `--snapshot-blob` there says where the plugin is. */
  readonly execArgv: readonly string[];
  /** The Node binary running the plugin (`process.execPath`), which the installed launcher starts. */
  readonly node: string;
  /** The V8 flags the start-up snapshot is built and run with. */
  readonly snapshotFlags: readonly string[];
  /** The directory relative paths in the arguments are resolved against (`process.cwd()`). */
  readonly cwd: string;
  readonly print: (text: string) => void;
  readonly printErr: (text: string) => void;
}

/**
 * `netledger-ipam install ARGS`: installs the running plugin's files (installPlugin) and prints
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
    const dir = pluginSourceDir({
      execArgv: io.execArgv,
      ...(io.selfDir !== undefined && { selfDir: io.selfDir }),
    });
    if (dir === undefined) throw new InstallError('cannot tell where the running plugin is');
    const { files, agentClient } = installPlugin(options, {
      dir,
      node: io.node,
      snapshotFlags: io.snapshotFlags,
    });
    io.print(files.map((f) => `${f.action.padEnd(9)} ${f.path}\n`).join(''));
    io.print(
      agentClient === 'node'
        ? 'node agent client: the plugin itself (Node)\n'
        : `node agent client: ${agentClient} (while ${options.agentSocket ?? DEFAULT_AGENT_SOCKET} exists)\n`,
    );
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
