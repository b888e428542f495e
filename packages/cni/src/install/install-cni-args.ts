import { isAbsolute, resolve } from 'node:path';
import { InstallUsageError } from './install-error.js';
import { parseStringFlags } from './parse-string-flags.js';

/** The main plugins `install-cni` writes a conflist for (another: `CNI_NETWORK_CONFIG`). */
const MAIN_PLUGINS = ['ptp', 'bridge'] as const;
type MainPlugin = (typeof MAIN_PLUGINS)[number];

/** The store the node agent serves, as its conflist must name it (the agent's own settings). */
export interface ConflistStore {
  readonly type?: string;
  readonly etcdEndpoints?: string;
  readonly path?: string;
}

/** What `netledger-ipam install-cni` was asked to do. */
export interface InstallCniOptions {
  /** The CNI bin directory: the static client goes there. */
  readonly binDir: string;
  /** The CNI config directory: the conflist and the install record go there. */
  readonly confDir: string;
  /** The conflist's file name (runtimes load the first by name). */
  readonly confName: string;
  readonly network: string;
  readonly mainPlugin: MainPlugin;
  /** `bridge` only: the bridge's name. */
  readonly bridge: string;
  readonly mtu?: number;
  readonly ipv4Pools: readonly string[];
  readonly ipv6Pools: readonly string[];
  readonly nodename?: string;
  readonly agentSocket: string;
  readonly store: ConflistStore;
  /** A whole conflist to write instead of the main plugin's (`CNI_NETWORK_CONFIG`). */
  readonly networkConfig?: string;
}

/** What `netledger-ipam uninstall-cni` was asked to do. */
export interface UninstallCniOptions {
  readonly confDir: string;
}

/** The default agent socket, the plugin's and netledger-node's. */
const DEFAULT_AGENT_SOCKET = '/run/netledger/node.sock';

/** Each flag, the environment variable it falls back to, and its default. */
const SETTINGS = {
  'bin-dir': { env: 'CNI_BIN_DIR', fallback: '/opt/cni/bin' },
  'conf-dir': { env: 'CNI_NET_DIR', fallback: '/etc/cni/net.d' },
  'conf-name': { env: 'CNI_CONF_NAME', fallback: '10-netledger.conflist' },
  network: { env: 'CNI_NETWORK_NAME', fallback: 'netledger' },
  'main-plugin': { env: 'CNI_MAIN_PLUGIN', fallback: 'ptp' },
  bridge: { env: 'CNI_BRIDGE', fallback: 'nl0' },
  mtu: { env: 'CNI_MTU', fallback: undefined },
  'ipv4-pools': { env: 'NETLEDGER_IPV4_POOLS', fallback: undefined },
  'ipv6-pools': { env: 'NETLEDGER_IPV6_POOLS', fallback: undefined },
  nodename: { env: 'NODENAME', fallback: undefined },
  'agent-socket': { env: 'NETLEDGER_AGENT_SOCKET', fallback: DEFAULT_AGENT_SOCKET },
  'network-config': { env: 'CNI_NETWORK_CONFIG', fallback: undefined },
} as const;
type Setting = keyof typeof SETTINGS;

/** The usage text of `netledger-ipam install-cni` and `uninstall-cni`. */
export const INSTALL_CNI_USAGE = `Usage: netledger-ipam install-cni [options]
       netledger-ipam uninstall-cni [--conf-dir DIR]

Installs netledger-ipam on a node, as Calico's install-cni does (the netledger-node DaemonSet's
init container runs it): the static client into the CNI bin directory, without the Node.js
fallback (with no netledger-node answering, the plugin fails with CNI code 11, try again later),
and a conflist into the CNI config directory, each written atomically and only when it changed.
Other files there are left alone. What it wrote is recorded, with digests, in
<conf-dir>/.netledger-install.record; uninstall-cni removes each recorded file that is still what
was written, and leaves (and reports) one changed since. Each option falls back to the
environment variable beside it.

  --bin-dir DIR          CNI_BIN_DIR             default /opt/cni/bin
  --conf-dir DIR         CNI_NET_DIR             default /etc/cni/net.d
  --conf-name NAME       CNI_CONF_NAME           default 10-netledger.conflist
  --network NAME         CNI_NETWORK_NAME        the network's name (default netledger)
  --main-plugin TYPE     CNI_MAIN_PLUGIN         ptp (default) or bridge; netledger-ipam runs in
                                                 gateway mode under either
  --bridge NAME          CNI_BRIDGE              bridge only: the bridge (default nl0)
  --mtu N                CNI_MTU                 the main plugin's MTU (default: its own)
  --ipv4-pools LIST      NETLEDGER_IPV4_POOLS    required: pool names or CIDRs, comma-separated
                                                 (the segment: one pool)
  --ipv6-pools LIST      NETLEDGER_IPV6_POOLS    also assign IPv6 from these pools
  --nodename NAME        NODENAME                the node's name, as netledger-node's
  --agent-socket PATH    NETLEDGER_AGENT_SOCKET  default ${DEFAULT_AGENT_SOCKET}
  --network-config JSON  CNI_NETWORK_CONFIG      a whole conflist to write instead, with one
                                                 netledger-ipam entry

The store is named in the conflist as netledger-node reads it (the agent serves only requests on
its own store): DATASTORE_TYPE (file, etcdv3, kubernetes), ETCD_ENDPOINTS,
NETLEDGER_DATASTORE_PATH.
`;

const NAME = /^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/;
const CONF_NAME = /^[a-zA-Z0-9][a-zA-Z0-9_.-]*\.conflist$/;

/** A setting's value: its flag, else its environment variable (unless empty), else its default. */
function setting(
  flags: Partial<Record<Setting, string>>,
  env: Readonly<Record<string, string | undefined>>,
  name: Setting,
): { value: string | undefined; source: string } {
  const flag = flags[name];
  if (flag !== undefined) return { value: flag, source: `--${name}` };
  const { env: variable, fallback } = SETTINGS[name];
  const fromEnv = env[variable];
  if (fromEnv !== undefined && fromEnv !== '') return { value: fromEnv, source: variable };
  return { value: fallback, source: `--${name}` };
}

const list = (text: string | undefined): string[] =>
  (text ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');

/**
 * Parses the arguments after `install-cni`, each setting from its flag, else its environment
 * variable, else its default. Throws {@link InstallUsageError} naming the flag or variable for an
 * unknown flag or argument, a repeat, a missing value, a main plugin other than ptp or bridge, a
 * file, network or bridge name that is not a plain name, an MTU that is not a whole number from
 * 68 to 65535, a relative agent socket, or no IPv4 pools (unless a whole network config is given).
 * Directories are made absolute against `cwd`.
 */
export function parseInstallCniArgs(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
): InstallCniOptions {
  const flags = parseStringFlags(argv, Object.keys(SETTINGS) as Setting[]);
  const get = (name: Setting) => setting(flags, env, name);
  const abs = (p: string): string => (isAbsolute(p) ? p : resolve(cwd, p));
  const plain = (name: Setting, pattern: RegExp, what: string): string => {
    const { value, source } = get(name);
    if (value === undefined || !pattern.test(value))
      throw new InstallUsageError(`${source} ${value ?? ''}: not ${what}`);
    return value;
  };
  const mainPlugin = get('main-plugin');
  if (!(MAIN_PLUGINS as readonly string[]).includes(mainPlugin.value ?? '')) {
    throw new InstallUsageError(
      `${mainPlugin.source} ${mainPlugin.value ?? ''}: not a main plugin netledger-ipam install-cni configures (${MAIN_PLUGINS.join(' or ')}; another: CNI_NETWORK_CONFIG)`,
    );
  }
  const bridge = plain('bridge', NAME, 'an interface name');
  if (bridge.length > 15) throw new InstallUsageError(`--bridge ${bridge}: not an interface name`);
  const mtu = get('mtu');
  if (
    mtu.value !== undefined &&
    !(/^\d+$/.test(mtu.value) && +mtu.value >= 68 && +mtu.value <= 65535)
  )
    throw new InstallUsageError(`${mtu.source} ${mtu.value}: not an MTU (68 to 65535)`);
  const socket = get('agent-socket');
  if (!isAbsolute(socket.value ?? ''))
    throw new InstallUsageError(`${socket.source} ${socket.value ?? ''}: not an absolute path`);
  const networkConfig = get('network-config').value;
  const ipv4Pools = list(get('ipv4-pools').value);
  if (networkConfig === undefined && ipv4Pools.length === 0) {
    throw new InstallUsageError(
      '--ipv4-pools (or NETLEDGER_IPV4_POOLS) is required: the pool of the network (gateway mode)',
    );
  }
  const nodename = get('nodename').value;
  const store: ConflistStore = {
    ...(env['DATASTORE_TYPE'] && { type: env['DATASTORE_TYPE'] }),
    ...(env['ETCD_ENDPOINTS'] && { etcdEndpoints: env['ETCD_ENDPOINTS'] }),
    ...(env['NETLEDGER_DATASTORE_PATH'] && { path: env['NETLEDGER_DATASTORE_PATH'] }),
  };
  return {
    binDir: abs(get('bin-dir').value!),
    confDir: abs(get('conf-dir').value!),
    confName: plain('conf-name', CONF_NAME, 'a file name ending in .conflist'),
    network: plain('network', NAME, 'a network name'),
    mainPlugin: mainPlugin.value as MainPlugin,
    bridge,
    ...(mtu.value !== undefined && { mtu: Number(mtu.value) }),
    ipv4Pools,
    ipv6Pools: list(get('ipv6-pools').value),
    ...(nodename !== undefined && { nodename }),
    agentSocket: socket.value!,
    store,
    ...(networkConfig !== undefined && { networkConfig }),
  };
}

/**
 * Parses the arguments after `uninstall-cni` (`--conf-dir DIR`, else `CNI_NET_DIR`, else
 * /etc/cni/net.d). Throws {@link InstallUsageError} for anything else.
 */
export function parseUninstallCniArgs(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
): UninstallCniOptions {
  const flags = parseStringFlags(argv, ['conf-dir']);
  const dir = setting(flags, env, 'conf-dir').value!;
  return { confDir: isAbsolute(dir) ? dir : resolve(cwd, dir) };
}
