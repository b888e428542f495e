import { isIpamError, partialFulfillmentError } from '@netledger/ipam-core';
import type { IpamAssignments } from '@netledger/ipam-core';
import { CniError, CniErrorCode } from './cni-error.js';
import type { IpamResult } from './cni-result.js';
import type { CommandContext } from './command-context.js';
import { allocationAttrs, handleIdFor } from './workload-identity.js';

/** Releases what a failed ADD assigned, by address and handle; a failure here is only logged. */
async function releaseAssigned(
  ctx: CommandContext,
  handleId: string,
  ips: readonly string[],
): Promise<void> {
  if (ips.length === 0) return;
  try {
    await ctx.client.releaseIps(
      ips.map((ip) => ({ address: ip.split('/')[0]!, handle: handleId })),
    );
    ctx.log.info(`released ${ips.join(', ')} after a failed ADD`);
  } catch (e) {
    ctx.log.error(
      `failed to release ${ips.join(', ')} after a failed ADD: ${(e as Error).message}`,
    );
  }
}

const partialIps = (e: unknown): string[] => {
  if (!isIpamError(e)) return [];
  const p = e.partial as { v4?: IpamAssignments; v6?: IpamAssignments } | undefined;
  return [...(p?.v4?.ips ?? []), ...(p?.v6?.ips ?? [])];
};

/**
 * ADD: with CNI_ARGS `IP=`, assigns that address (`intendedUse: Workload`) and returns it as /32 or
 * /128; otherwise auto-assigns one address per enabled family from the configured pools and
 * returns them with the block's mask. Everything goes under handle `<network>.<containerID>` with
 * the node, pod, namespace and timestamp attributes. When either family comes up short (or the
 * assignment throws with a partial result), whatever was assigned is released before the error
 * (`failed to request IPv4 addresses: ...`) is returned, so a failed ADD leaves nothing allocated.
 */
export async function cmdAdd(ctx: CommandContext): Promise<IpamResult> {
  const { conf, client } = ctx;
  const { workload } = ctx;
  const handleId = workload?.handleId ?? handleIdFor(conf.name, ctx.request.containerId);
  const attrs = {
    ...allocationAttrs({ nodename: ctx.nodename, cniArgs: ctx.cniArgs, nowMs: ctx.nowMs() }),
    ...workload?.attrs,
  };
  const cap = workload?.maxAllocToHandlePerIpVersion;
  const ip = ctx.cniArgs.ip;
  if (ip !== undefined) {
    await client.assignIp({
      ip,
      hostname: ctx.nodename,
      handleId,
      attrs,
      intendedUse: 'Workload',
      ...(cap !== undefined && { maxAllocToHandlePerIpVersion: cap }),
    });
    return { ips: [`${ip}/${ip.includes(':') ? 128 : 32}`] };
  }
  let r;
  try {
    r = await client.autoAssign({
      num4: conf.ipam.assignIpv4 ? 1 : 0,
      num6: conf.ipam.assignIpv6 ? 1 : 0,
      hostname: ctx.nodename,
      handleId,
      attrs,
      intendedUse: 'Workload',
      ...(conf.ipam.ipv4Pools.length > 0 && { ipv4Pools: conf.ipam.ipv4Pools }),
      ...(conf.ipam.ipv6Pools.length > 0 && { ipv6Pools: conf.ipam.ipv6Pools }),
      ...(workload?.namespace && { namespace: workload.namespace }),
      ...(cap !== undefined && { maxAllocToHandlePerIpVersion: cap }),
    });
  } catch (e) {
    await releaseAssigned(ctx, handleId, partialIps(e));
    throw e;
  }
  const short4 = partialFulfillmentError(r.v4);
  const short6 = partialFulfillmentError(r.v6);
  if (short4 || short6) {
    await releaseAssigned(ctx, handleId, [...r.v4.ips, ...r.v6.ips]);
    const [family, err] = short4 ? ['IPv4', short4] : ['IPv6', short6!];
    throw new CniError(
      CniErrorCode.Internal,
      `failed to request ${family} addresses: ${err.message}`,
    );
  }
  return { ips: [...r.v4.ips, ...r.v6.ips] };
}
