import type { Lease } from './lease.js';
import type { Pool } from './pool.js';

/** One leased interface, ready to be written into LXC's configuration. */
export interface LxcInterface {
  readonly name: string;
  readonly lease: Lease;
  readonly pool: Pool;
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
 * pool's bridge, the address always with the pool's prefix (a bare address would get a classful
 * prefix from LXC), the gateway, the MAC and `flags = up`.
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
      [`${k}.ipv4.address`, `${iface.lease.address}/${iface.pool.cidr.prefix}`],
      [`${k}.ipv4.gateway`, iface.pool.gateway],
      [`${k}.hwaddr`, iface.lease.mac],
      [`${k}.flags`, 'up'],
    );
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
