import { isIpamError } from '@netledger/ipam-core';
import type { PlannedAssignment } from './plan-addresses.js';
import type { IpFamily } from './lb-request.js';
import type { LbState } from './lb-state.js';
import type { LbPorts } from './reconcile-handle.js';

/** The virtual host LoadBalancer addresses are assigned on (affinity `virtual:load-balancer`). */
const LOAD_BALANCER_HOST = 'load-balancer';

const stripMask = (cidr: string): string => cidr.split('/')[0]!;

/** Every LoadBalancer block the pools can hold: the per-host block cap the virtual host gets. */
function loadBalancerBlockCap(state: LbState): number {
  let n = 0;
  for (const p of state.pools.values()) {
    if (!p.loadBalancer) continue;
    const blockSize = p.pool.spec.blockSize ?? (p.family === 'IPv4' ? 26 : 122);
    n += 2 ** Math.min(30, Math.max(0, blockSize - p.cidr.prefix));
  }
  return Math.max(1, n);
}

/** Why a family has no address: an Event's reason and message. */
export interface Problem {
  readonly reason: string;
  readonly message: string;
}

/**
 * Assigns one planned address; undefined (with the problem recorded per family) when it cannot
 * be had. Errors other than a refusal throw.
 */
export async function assignOne(
  a: PlannedAssignment,
  ctx: {
    handle: string;
    attrs: Record<string, string>;
    state: LbState;
    ports: LbPorts;
    problems: Map<IpFamily, Problem>;
  },
): Promise<string | undefined> {
  const { handle, attrs, state, ports } = ctx;
  if (a.ip !== undefined) {
    try {
      await ports.ipam.assignIp({
        ip: a.ip,
        hostname: LOAD_BALANCER_HOST,
        handleId: handle,
        attrs,
        intendedUse: 'LoadBalancer',
        maxAllocToHandlePerIpVersion: 1,
      });
      return a.ip;
    } catch (e) {
      if (isIpamError(e, 'AlreadyExists', 'IpInCooldown')) {
        const holder = state.byIp.get(a.ip);
        ctx.problems.set(a.family, {
          reason: 'AddressInUse',
          message: `${a.ip} is already assigned${holder ? ` (to service ${holder.namespace}/${holder.service})` : ''}`,
        });
        return undefined;
      }
      if (isIpamError(e, 'InvalidArgument', 'NoQualifiedPool')) {
        ctx.problems.set(a.family, {
          reason: 'AddressUnavailable',
          message: `${a.ip}: ${e.message.trim()}`,
        });
        return undefined;
      }
      throw e;
    }
  }
  const v4 = a.family === 'IPv4';
  try {
    const r = await ports.ipam.autoAssign({
      num4: v4 ? 1 : 0,
      num6: v4 ? 0 : 1,
      hostname: LOAD_BALANCER_HOST,
      handleId: handle,
      attrs,
      intendedUse: 'LoadBalancer',
      ...(a.pools && (v4 ? { ipv4Pools: a.pools } : { ipv6Pools: a.pools })),
      maxAllocToHandlePerIpVersion: 1,
      maxBlocksPerHost: loadBalancerBlockCap(state),
    });
    const got = (v4 ? r.v4 : r.v6).ips[0];
    if (got !== undefined) return stripMask(got);
    const msgs = (v4 ? r.v4 : r.v6).msgs;
    ctx.problems.set(a.family, {
      reason: 'NoAddressAvailable',
      message: `no ${a.family} address left in ${a.pools ? `pools ${a.pools.join(', ')}` : 'the LoadBalancer pools'}${msgs.length > 0 ? ` (${msgs.join('; ')})` : ''}`,
    });
    return undefined;
  } catch (e) {
    if (isIpamError(e, 'NoQualifiedPool', 'BlockLimit')) {
      ctx.problems.set(a.family, {
        reason: 'NoAddressAvailable',
        message: `no ${a.family} address: ${e.message.trim()}`,
      });
      return undefined;
    }
    throw e;
  }
}
