import type { Lease } from './lease.js';
import type { Pool } from './pool.js';

/** One leased interface, ready to be written into LXC's configuration. */
export interface LxcInterface {
  readonly name: string;
  readonly pool: Pool;
  /** The interface's IPv4 lease, when its pool has an IPv4 subnet. */
  readonly ipv4: Lease | undefined;
  /** The interface's IPv6 lease, when its pool has an IPv6 subnet. */
  readonly ipv6: Lease | undefined;
}

/** What a container start hands to LXC. */
export interface LxcNetworkConfig {
  /** `key = value` pairs in order: `lxc.uts.name`, then `lxc.net.N.*` per interface. */
  readonly entries: readonly (readonly [string, string])[];
  /** `lxc.namespace.keep` without `net`, when the container's config had that key. */
  readonly namespaceKeep: string | undefined;
}

/**
 * Renders the LXC network configuration of a started container: a veth per interface on its
 * pool's bridge, each family's address always with the pool's prefix (a bare IPv4 address would
 * get a classful prefix from LXC) and its gateway, the MAC and `flags = up`.
 */
export function renderLxcNetwork(args: {
  readonly hostname: string;
  readonly interfaces: readonly LxcInterface[];
  readonly namespaceKeep: readonly string[] | undefined;
}): LxcNetworkConfig {
  const entries: [string, string][] = [['lxc.uts.name', args.hostname]];
  args.interfaces.forEach((iface, n) => {
    const k = `lxc.net.${n}`;
    entries.push(
      [`${k}.type`, 'veth'],
      [`${k}.link`, iface.pool.bridge],
      [`${k}.name`, iface.name],
    );
    const { ipv4, ipv6 } = iface.pool;
    if (iface.ipv4 !== undefined && ipv4 !== undefined) {
      entries.push(
        [`${k}.ipv4.address`, `${iface.ipv4.address}/${ipv4.cidr.prefix}`],
        [`${k}.ipv4.gateway`, ipv4.gateway],
      );
    }
    if (iface.ipv6 !== undefined && ipv6 !== undefined) {
      entries.push(
        [`${k}.ipv6.address`, `${iface.ipv6.address}/${ipv6.cidr.prefix}`],
        [`${k}.ipv6.gateway`, ipv6.gateway],
      );
    }
    const mac = (iface.ipv4 ?? iface.ipv6)?.mac;
    if (mac !== undefined) entries.push([`${k}.hwaddr`, mac]);
    entries.push([`${k}.flags`, 'up']);
  });
  const namespaceKeep = args.namespaceKeep?.filter((ns) => ns !== 'net').join(' ');
  return { entries, namespaceKeep };
}

/** The config as lxc.container.conf lines (`key = value`), `lxc.namespace.keep` last. */
export function formatLxcNetwork(config: LxcNetworkConfig): string {
  const lines = config.entries.map(([k, v]) => `${k} = ${v}`);
  if (config.namespaceKeep !== undefined)
    lines.push(`lxc.namespace.keep = ${config.namespaceKeep}`.trimEnd());
  return lines.join('\n') + '\n';
}
