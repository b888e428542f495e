import { cidrContainsIp, parseCidr, parseIp } from '@netledger/accounting';
import { enabledPools } from '@netledger/ipam-core';
import type { IPPool } from '@netledger/ipam-core';
import { CniError, CniErrorCode } from './cni-error.js';
import type { CommandContext } from './command-context.js';
import { planGateway, reservedAddresses } from './gateway-mode.js';
import type { FamilyPools, GatewayPlan } from './gateway-mode.js';
import { resolveRequestedPools } from './pool-match.js';

/** The pool entries each family of an ADD draws from (`ipv4_pools`, `ipv6_pools`). */
export interface RequestedPools {
  readonly v4: readonly string[];
  readonly v6: readonly string[];
}

const badIp = (msg: string): CniError =>
  new CniError(CniErrorCode.InvalidEnvironmentVariables, msg);

/** CNI_ARGS `IP=` must lie in an enabled pool that allows workloads and, in gateway mode, in a segment without being one of its reserved addresses. */
function checkRequestedIp(
  ip: string,
  pools: readonly IPPool[],
  plan: GatewayPlan | undefined,
): void {
  const addr = parseIp(ip);
  const pool = enabledPools(pools, addr.version).find((p) =>
    cidrContainsIp(parseCidr(p.spec.cidr, { strict: false }), addr),
  );
  if (pool === undefined) throw badIp(`IP=${ip} is not in an enabled pool`);
  const uses = pool.spec.allowedUses ?? [];
  if (!uses.includes('Workload')) {
    throw badIp(
      `IP=${ip} is in IP pool "${pool.metadata.name}", which is not allowed for use "Workload" (allowedUses: [${uses.join(' ')}])`,
    );
  }
  if (plan === undefined) return;
  if (!plan.segments.some((s) => cidrContainsIp(s.subnet, addr))) {
    throw badIp(`IP=${ip} is outside the network's segments`);
  }
  if (reservedAddresses(plan).some((r) => r.version === addr.version && r.value === addr.value)) {
    throw badIp(`IP=${ip} is a gateway, network or broadcast address of the network`);
  }
}

/**
 * Checks an ADD before it writes anything (registers the node, reserves the gateway, assigns):
 * every pool `requested` names is an enabled pool of its family (7 otherwise), the gateway-mode
 * plan holds (7), and CNI_ARGS `IP=` fits the pools and segments (4). Reads the pools only when
 * something needs them (named pools, `IP=`, gateway mode), so the default ADD reads nothing more.
 * Returns the gateway-mode plan, or `undefined` in calico mode.
 */
export async function validateAdd(
  ctx: CommandContext,
  requested: RequestedPools,
): Promise<GatewayPlan | undefined> {
  const { ipam } = ctx.conf;
  const ip = ctx.cniArgs.ip;
  const gateway = ipam.mode === 'gateway';
  if (!gateway && ip === undefined && requested.v4.length === 0 && requested.v6.length === 0) {
    return undefined;
  }
  const pools = await ctx.client.pools.list();
  const families: FamilyPools[] = [];
  if (ipam.assignIpv4) {
    families.push({
      version: 4,
      requested: requested.v4,
      pools: resolveRequestedPools(pools, requested.v4, 4),
    });
  }
  if (ipam.assignIpv6) {
    families.push({
      version: 6,
      requested: requested.v6,
      pools: resolveRequestedPools(pools, requested.v6, 6),
    });
  }
  const plan =
    gateway && ipam.gateway
      ? planGateway({ network: ctx.conf.name, conf: ipam.gateway, families, pools })
      : undefined;
  if (ip !== undefined) checkRequestedIp(ip, pools, plan);
  return plan;
}
