import type { PoolDiff } from './diff-pools.js';
import type { IpForwarding } from './ip-forwarding.js';
import type { Logger } from './logger.js';
import type { NatBackend, NatDriver } from './nat-driver.js';
import type { BridgeDriver } from './netlink-bridge-driver.js';
import type { PoolRegistry } from './pool.js';

/** What the host network now looks like: the NAT backend used, and NAT warnings. */
export interface HostNetworkResult {
  readonly natBackend: NatBackend | undefined;
  readonly warnings: readonly string[];
}

/**
 * Brings the host in line with a revision's pools: removed pools' bridges deleted, a changed
 * pool's old bridge or gateway address removed, every pool's bridge ensured (created, addressed,
 * up), then NAT (when any pool, old or new, has `nat`) and IP forwarding (only with NAT pools).
 * Bridge failures throw `HostFailure`; NAT and forwarding failures are returned as warnings.
 */
export async function applyHostNetwork(args: {
  readonly bridges: BridgeDriver;
  readonly nat: NatDriver;
  readonly forwarding: IpForwarding;
  readonly logger: Logger;
  readonly diff: PoolDiff;
  readonly previous: PoolRegistry;
  readonly pools: PoolRegistry;
}): Promise<HostNetworkResult> {
  const { bridges, logger, diff } = args;
  for (const pool of diff.removed) {
    await bridges.deleteBridge(pool.bridge);
    logger.log('info', 'removed pool bridge', { pool: pool.name, bridge: pool.bridge });
  }
  for (const { before, after } of diff.changed) {
    if (before.bridge !== after.bridge) await bridges.deleteBridge(before.bridge);
    else if (before.gateway !== after.gateway || before.subnet !== after.subnet) {
      await bridges.removeAddress({
        bridge: before.bridge,
        ip: before.gatewayIp,
        prefix: before.cidr.prefix,
      });
    }
  }
  for (const pool of args.pools.values()) {
    await bridges.ensureBridge({
      bridge: pool.bridge,
      ip: pool.gatewayIp,
      prefix: pool.cidr.prefix,
    });
    logger.log('info', 'bridge ready', {
      pool: pool.name,
      bridge: pool.bridge,
      address: `${pool.gateway}/${pool.cidr.prefix}`,
    });
  }
  const natPools = [...args.pools.values()].filter((p) => p.nat);
  const previousNat = [...args.previous.values()].filter((p) => p.nat);
  if (natPools.length === 0 && previousNat.length === 0)
    return { natBackend: undefined, warnings: [] };
  const warnings: string[] = [];
  if (natPools.length > 0) {
    try {
      await args.forwarding.enable();
    } catch (e) {
      warnings.push(`failed to enable IP forwarding: ${(e as Error).message}`);
    }
  }
  const result = await args.nat.apply({ pools: natPools, previous: previousNat });
  warnings.push(...result.warnings);
  if (natPools.length > 0) {
    logger.log(result.backend === 'none' ? 'warn' : 'info', `NAT set up (${result.backend})`, {
      pools: natPools.map((p) => p.name).join(','),
    });
  }
  return { natBackend: result.backend, warnings };
}
