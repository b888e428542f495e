import { enabledPools, filterPoolsByUse, isIpamError, selectsNode } from '@netledger/ipam-core';
import type { IPPool } from '@netledger/ipam-core';
import { CniError, CniErrorCode } from './cni-error.js';
import type { CommandContext } from './command-context.js';
import { poolMatches } from './pool-match.js';

/**
 * STATUS: the datastore answers and, for each family the config assigns, at least one pool is
 * usable: enabled, allowing `Workload`, and either named in `ipv4_pools`/`ipv6_pools` or (when
 * none are named) selecting this node. Fails `PluginNotAvailable` (50) saying why.
 */
export async function cmdStatus(ctx: CommandContext): Promise<void> {
  let pools: IPPool[];
  let labels: Record<string, string> = {};
  try {
    pools = await ctx.client.pools.list();
    try {
      labels = { ...(await ctx.client.nodes.get(ctx.nodename)).metadata.labels };
    } catch (e) {
      if (!isIpamError(e, 'DoesNotExist')) throw e;
    }
  } catch (e) {
    throw new CniError(
      CniErrorCode.PluginNotAvailable,
      `datastore unavailable: ${(e as Error).message}`,
      { cause: e },
    );
  }
  const families: [4 | 6, readonly string[]][] = [];
  if (ctx.conf.ipam.assignIpv4) families.push([4, ctx.conf.ipam.ipv4Pools]);
  if (ctx.conf.ipam.assignIpv6) families.push([6, ctx.conf.ipam.ipv6Pools]);
  for (const [version, requested] of families) {
    const usable = filterPoolsByUse(enabledPools(pools, version), 'Workload');
    const ok =
      requested.length > 0
        ? usable.some((p) => requested.some((r) => poolMatches(p, r)))
        : usable.some((p) => selectsNode(p, labels));
    if (!ok) {
      const which =
        requested.length > 0 ? ` among ${requested.join(', ')}` : ` for node ${ctx.nodename}`;
      throw new CniError(CniErrorCode.PluginNotAvailable, `no usable IPv${version} pool${which}`);
    }
  }
}
