import type { IpFamily } from './address.js';
import type { PoolDiff } from './diff-pools.js';
import { droppedBridges } from './diff-pools.js';
import type { IpForwarding } from './ip-forwarding.js';
import type { Logger } from './logger.js';
import type { NatBackend, NatDriver } from './nat-driver.js';
import type { BridgeDriver, GatewayAddress } from './netlink-bridge-driver.js';
import { natSides } from './nft-ruleset.js';
import type { Pool, PoolFamily, PoolRegistry } from './pool.js';
import { familiesOf, poolFamily } from './pool.js';

/** What the host network now looks like: the NAT backend used (none asked: undefined), and NAT warnings. */
export interface HostNetworkResult {
  readonly natBackend: NatBackend | undefined;
  readonly warnings: readonly string[];
}

function gatewayOf(side: PoolFamily): GatewayAddress {
  return { family: side.family, ip: side.gatewayIp, prefix: side.cidr.prefix };
}

const hasNat = (p: Pool): boolean => p.ipv4?.nat === true || p.ipv6?.nat === true;

/**
 * Brings the host in line with a revision's pools: removed pools' bridges deleted, a changed
 * pool's old bridge or old gateway addresses (per family) removed, every pool's bridge ensured
 * (created, addressed in each family, up), then NAT (when any pool, old or new, masquerades a
 * family) and forwarding of each family a pool masquerades. Bridge failures throw `HostFailure`;
 * NAT and forwarding failures are returned as warnings.
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
  for (const { pool, bridge } of droppedBridges(diff)) {
    await bridges.deleteBridge(bridge);
    logger.log('info', 'removed pool bridge', { pool, bridge });
  }
  for (const { before, after } of diff.changed) {
    if (before.bridge !== after.bridge) continue;
    for (const old of familiesOf(before)) {
      const now = poolFamily(after, old.family);
      if (now === undefined || now.gateway !== old.gateway || now.subnet !== old.subnet)
        await bridges.removeAddress({ bridge: before.bridge, address: gatewayOf(old) });
    }
  }
  for (const pool of args.pools.values()) {
    const sides = familiesOf(pool);
    await bridges.ensureBridge({ bridge: pool.bridge, addresses: sides.map(gatewayOf) });
    logger.log('info', 'bridge ready', {
      pool: pool.name,
      bridge: pool.bridge,
      address: sides.map((s) => `${s.gateway}/${s.cidr.prefix}`).join(' '),
    });
  }
  const natPools = [...args.pools.values()].filter(hasNat);
  const previousNat = [...args.previous.values()].filter(hasNat);
  if (natPools.length === 0 && previousNat.length === 0)
    return { natBackend: undefined, warnings: [] };
  const warnings: string[] = [];
  for (const family of [4, 6] as const satisfies readonly IpFamily[]) {
    if (natSides(natPools, family).length === 0) continue;
    try {
      await args.forwarding.enable(family);
    } catch (e) {
      warnings.push(`failed to enable IPv${family} forwarding: ${(e as Error).message}`);
    }
  }
  const result = await args.nat.apply({ pools: natPools, previous: previousNat });
  warnings.push(...result.warnings);
  // With no working tool the warnings say so; there is nothing "set up" to report.
  if (natPools.length > 0 && result.backend !== 'none') {
    logger.log('info', `NAT set up (${result.backend})`, {
      pools: natPools.map((p) => p.name).join(','),
    });
  }
  return { natBackend: result.backend, warnings };
}
