import type { ConflistStore, InstallCniOptions } from './install-cni-args.js';
import { InstallError } from './install-error.js';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The conflist keys that name the store, as the node agent compares them (storeIdentity). */
function storeKeys(store: ConflistStore): Json {
  return {
    ...(store.type !== undefined && { datastore_type: store.type }),
    ...(store.etcdEndpoints !== undefined && { etcd_endpoints: store.etcdEndpoints }),
    ...(store.path !== undefined && { datastore_path: store.path }),
  };
}

/**
 * What `install-cni` adds to the netledger-ipam entry: the node, the store and the agent's socket,
 * so the node agent serves the requests (it sends back those naming another store, node or
 * socket).
 */
function agentKeys(o: InstallCniOptions): Json {
  return {
    ...(o.nodename !== undefined && { nodename: o.nodename }),
    ...storeKeys(o.store),
    agent_socket: o.agentSocket,
  };
}

/** The netledger-ipam entry of the main plugin's conflist: gateway mode on the given pools. */
function gatewayIpam(o: InstallCniOptions): Json {
  const v6 = o.ipv6Pools.length > 0;
  return {
    type: 'netledger-ipam',
    mode: 'gateway',
    ipv4_pools: o.ipv4Pools,
    ...(v6 && { assign_ipv6: 'true', ipv6_pools: o.ipv6Pools }),
    routes: [{ dst: '0.0.0.0/0' }, ...(v6 ? [{ dst: '::/0' }] : [])],
    ...agentKeys(o),
  };
}

/** The main plugin's entry (ptp or bridge), masquerading traffic that leaves the node. */
function mainPluginEntry(o: InstallCniOptions): Json {
  const mtu = o.mtu === undefined ? {} : { mtu: o.mtu };
  switch (o.mainPlugin) {
    case 'ptp':
      // ptp puts the segment's gateway on each host-side veth and routes each pod's address to it:
      // nothing to set up beforehand (docs/cni.md, "Modes").
      return { type: 'ptp', ipMasq: true, ...mtu, ipam: gatewayIpam(o) };
    case 'bridge':
      return {
        type: 'bridge',
        bridge: o.bridge,
        isGateway: true,
        ipMasq: true,
        hairpinMode: true,
        ...mtu,
        ipam: gatewayIpam(o),
      };
  }
}

/** The one plugin of a given conflist whose IPAM is netledger-ipam; refuses none or several. */
function netledgerEntry(plugins: unknown[]): Json {
  const ours = plugins.filter(
    (p) => isObject(p) && isObject(p['ipam']) && p['ipam']['type'] === 'netledger-ipam',
  );
  if (ours.length !== 1) {
    throw new InstallError(
      `CNI_NETWORK_CONFIG: needs exactly one plugin whose ipam type is netledger-ipam, found ${ours.length}`,
    );
  }
  return ours[0] as Json;
}

/**
 * The conflist `install-cni` writes: with a whole network config given (`CNI_NETWORK_CONFIG`),
 * that conflist, its netledger-ipam entry given the node, store and agent socket where it sets
 * none of its own; else the main plugin's (ptp or bridge) with netledger-ipam in gateway mode on
 * the pools, a default route per family, the node, the store and the agent socket. Throws
 * {@link InstallError} for a given config that is not a conflist with one netledger-ipam entry.
 */
export function hostConflist(o: InstallCniOptions): Json {
  if (o.networkConfig === undefined) {
    return { cniVersion: '1.0.0', name: o.network, plugins: [mainPluginEntry(o)] };
  }
  let given: unknown;
  try {
    given = JSON.parse(o.networkConfig);
  } catch (e) {
    throw new InstallError(`CNI_NETWORK_CONFIG: not JSON: ${(e as Error).message}`);
  }
  if (!isObject(given) || !Array.isArray(given['plugins'])) {
    throw new InstallError('CNI_NETWORK_CONFIG: not a conflist (an object with a plugins list)');
  }
  const entry = netledgerEntry(given['plugins']);
  const ipam = entry['ipam'] as Json;
  // The plugin reads each key from ipam, then the entry's top level: either may set it.
  const missing = Object.entries(agentKeys(o)).filter(([k]) => !(k in ipam) && !(k in entry));
  const plugins = (given['plugins'] as unknown[]).map((p): unknown =>
    p === entry ? { ...entry, ipam: { ...ipam, ...Object.fromEntries(missing) } } : p,
  );
  return { ...given, plugins };
}

/**
 * The netledger-ipam entry of `conflist` as the plugin receives it: the entry with the list's
 * `cniVersion` and `name`, for checking with the plugin's own parser.
 */
export function netledgerNetConf(conflist: Json): Json {
  const plugins = conflist['plugins'] as unknown[];
  return { cniVersion: conflist['cniVersion'], name: conflist['name'], ...netledgerEntry(plugins) };
}
