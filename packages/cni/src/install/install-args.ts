import { isAbsolute, resolve } from 'node:path';
import { InstallUsageError } from './install-error.js';
import { parseStringFlags } from './parse-string-flags.js';

/** What `netledger-ipam install` was asked to do. */
export interface InstallOptions {
  /** The CNI bin directory: the client and `netledger-ipam.d/` go there. */
  readonly binDir: string;
  /** When given, an example conflist is written there. */
  readonly confDir?: string;
  readonly network: string;
  readonly bridge: string;
  readonly pool: string;
  readonly confFile: string;
  readonly datastorePath?: string;
  readonly lockFile?: string;
  /** The example conflist's `agent_socket` (the client reads it from each request's config). */
  readonly agentSocket?: string;
}

/** The usage text of `netledger-ipam install`. */
export const INSTALL_USAGE = `Usage: netledger-ipam install --bin-dir DIR [--conf-dir DIR [options]]

Lays down netledger-ipam in DIR (a CNI bin directory such as /opt/cni/bin): the static client
DIR/netledger-ipam, which hands each request to the node agent (netledger-node), and beside it the
Node.js fallback it runs when no agent answers, DIR/netledger-ipam.d/ (the bundle, and a link to
this Node.js). Idempotent; run it again after upgrading Node.js.

  --bin-dir DIR          where to install (created if missing)
  --conf-dir DIR         also write an example conflist there (bridge, gateway mode)
  --network NAME         the example's network name (default netledger)
  --bridge NAME          the example's bridge (default nl0)
  --pool CIDR            the example's pool (default 10.89.0.0/24; create it with
                         netledgerctl ippool create --name NAME --cidr CIDR)
  --conf-file NAME       the example's file name (default <network>.conflist)
  --datastore-path PATH  the example's datastore_path (default: the plugin's default)
  --lock-file PATH       the example's ipam_lock_file (default: the plugin's default)
  --agent-socket PATH    the example's agent_socket (default: the plugin's, /run/netledger/node.sock)
`;

const FLAGS = [
  'bin-dir',
  'conf-dir',
  'network',
  'bridge',
  'pool',
  'conf-file',
  'datastore-path',
  'lock-file',
  'agent-socket',
] as const;
const NAME = /^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/;

/**
 * Parses the arguments after `install` (`--flag VALUE` or `--flag=VALUE`). Throws
 * {@link InstallUsageError} for an unknown flag or argument, a missing value or `--bin-dir`, a flag
 * given twice, or a network, bridge or file name that is not a plain name. Paths are made absolute
 * against `cwd`.
 */
export function parseInstallArgs(argv: readonly string[], cwd: string): InstallOptions {
  const v = parseStringFlags(argv, FLAGS);
  if (v['bin-dir'] === undefined) throw new InstallUsageError('--bin-dir is required');
  const abs = (p: string): string => (isAbsolute(p) ? p : resolve(cwd, p));
  const network = v.network ?? 'netledger';
  const bridge = v.bridge ?? 'nl0';
  const confFile = v['conf-file'] ?? `${network}.conflist`;
  if (!NAME.test(network)) throw new InstallUsageError(`--network ${network}: not a network name`);
  if (!NAME.test(bridge) || bridge.length > 15)
    throw new InstallUsageError(`--bridge ${bridge}: not an interface name`);
  if (!NAME.test(confFile)) throw new InstallUsageError(`--conf-file ${confFile}: not a file name`);
  const optional = (key: string, value: string | undefined): Record<string, string> =>
    value === undefined ? {} : { [key]: abs(value) };
  return {
    binDir: abs(v['bin-dir']),
    ...optional('confDir', v['conf-dir']),
    network,
    bridge,
    pool: v.pool ?? '10.89.0.0/24',
    confFile,
    ...optional('datastorePath', v['datastore-path']),
    ...optional('lockFile', v['lock-file']),
    ...optional('agentSocket', v['agent-socket']),
  };
}
