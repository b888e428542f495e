import { isAbsolute, resolve } from 'node:path';

/** What `netledger-ipam install` was asked to do. */
export interface InstallOptions {
  /** The CNI bin directory: the launcher and `netledger-ipam.d/` go there. */
  readonly binDir: string;
  /** When given, an example conflist is written there. */
  readonly confDir?: string;
  readonly network: string;
  readonly bridge: string;
  readonly pool: string;
  readonly confFile: string;
  readonly datastorePath?: string;
  readonly lockFile?: string;
  /**
   * The node agent's socket the launcher looks for (`--agent-socket`; default the plugin's,
   * `/run/netledger/node.sock`), also written as `agent_socket` into the example conflist.
   */
  readonly agentSocket?: string;
  /** How the launcher reaches the agent: Perl's client when a Perl is found (`perl`), or Node's. */
  readonly agentClient: 'perl' | 'node';
}

/** A usage error of `netledger-ipam install` (exit status 2). */
export class InstallUsageError extends Error {
  override readonly name = 'InstallUsageError';
}

/** The usage text of `netledger-ipam install`. */
export const INSTALL_USAGE = `Usage: netledger-ipam install --bin-dir DIR [--conf-dir DIR [options]]

Lays down a self-contained netledger-ipam in DIR (a CNI bin directory such as /opt/cni/bin): the
launcher DIR/netledger-ipam and DIR/netledger-ipam.d/ with the bundle, the snapshot's entry and a
start-up snapshot built for this Node.js. Run it again after upgrading Node.js. Idempotent.

  --bin-dir DIR          where to install (created if missing)
  --conf-dir DIR         also write an example conflist there (bridge, gateway mode)
  --network NAME         the example's network name (default netledger)
  --bridge NAME          the example's bridge (default nl0)
  --pool CIDR            the example's pool (default 10.89.0.0/24; create it with
                         netledgerctl ippool create --name NAME --cidr CIDR)
  --conf-file NAME       the example's file name (default <network>.conflist)
  --datastore-path PATH  the example's datastore_path (default: the plugin's default)
  --lock-file PATH       the example's ipam_lock_file (default: the plugin's default)
  --agent-socket PATH    the node agent's socket (default /run/netledger/node.sock): while it
                         exists the launcher hands requests to the agent; also the example's
                         agent_socket
  --agent-client KIND    perl (default: Perl's client when a Perl is found, which spares each
                         request a Node start-up) or node (the plugin itself asks the agent)
`;

const VALUE_FLAGS = new Set([
  '--bin-dir',
  '--conf-dir',
  '--network',
  '--bridge',
  '--pool',
  '--conf-file',
  '--datastore-path',
  '--lock-file',
  '--agent-socket',
  '--agent-client',
]);

const NAME = /^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/;

/**
 * Parses the arguments after `install` (`--flag VALUE` or `--flag=VALUE`). Throws
 * {@link InstallUsageError} for an unknown flag, a missing value or `--bin-dir`, a flag given
 * twice, or a network, bridge or file name that is not a plain name. Directories are made
 * absolute against `cwd`.
 */
export function parseInstallArgs(argv: readonly string[], cwd: string): InstallOptions {
  const values = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.indexOf('=');
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    if (!VALUE_FLAGS.has(flag))
      throw new InstallUsageError(`unknown argument ${JSON.stringify(arg)}`);
    const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined || value === '') throw new InstallUsageError(`${flag} needs a value`);
    if (values.has(flag)) throw new InstallUsageError(`${flag} is given twice`);
    values.set(flag, value);
  }
  const binDir = values.get('--bin-dir');
  if (binDir === undefined) throw new InstallUsageError('--bin-dir is required');
  const abs = (p: string): string => (isAbsolute(p) ? p : resolve(cwd, p));
  const network = values.get('--network') ?? 'netledger';
  const bridge = values.get('--bridge') ?? 'nl0';
  const confFile = values.get('--conf-file') ?? `${network}.conflist`;
  if (!NAME.test(network)) throw new InstallUsageError(`--network ${network}: not a network name`);
  if (!NAME.test(bridge) || bridge.length > 15) {
    throw new InstallUsageError(`--bridge ${bridge}: not an interface name`);
  }
  if (!NAME.test(confFile)) throw new InstallUsageError(`--conf-file ${confFile}: not a file name`);
  const confDir = values.get('--conf-dir');
  const datastorePath = values.get('--datastore-path');
  const lockFile = values.get('--lock-file');
  const agentSocket = values.get('--agent-socket');
  const agentClient = values.get('--agent-client') ?? 'perl';
  if (agentClient !== 'perl' && agentClient !== 'node') {
    throw new InstallUsageError(`--agent-client ${agentClient}: perl or node`);
  }
  if (agentSocket !== undefined && !/^[\w./+=-]+$/.test(agentSocket)) {
    throw new InstallUsageError(`--agent-socket ${agentSocket}: not a plain path`);
  }
  return {
    binDir: abs(binDir),
    ...(confDir !== undefined && { confDir: abs(confDir) }),
    network,
    bridge,
    pool: values.get('--pool') ?? '10.89.0.0/24',
    confFile,
    ...(datastorePath !== undefined && { datastorePath: abs(datastorePath) }),
    ...(lockFile !== undefined && { lockFile: abs(lockFile) }),
    ...(agentSocket !== undefined && { agentSocket: abs(agentSocket) }),
    agentClient,
  };
}
