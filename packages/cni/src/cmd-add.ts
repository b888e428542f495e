import { isIpamError, partialFulfillmentError } from '@netledger/ipam-core';
import type { IpamAssignments } from '@netledger/ipam-core';
import { CniError, CniErrorCode } from './cni-error.js';
import type { IpamResult } from './cni-result.js';
import type { CommandContext } from './command-context.js';
import { ensureNode, unregisterNode } from './ensure-node.js';
import { ensureGatewayReservation, gatewayResult } from './gateway-mode.js';
import { readHeldAllocation } from './held-allocation.js';
import { repeatedAddResult } from './repeat-add.js';
import { validateAdd } from './validate-add.js';
import type { RequestedPools } from './validate-add.js';
import type { GatewayPlan } from './gateway-mode.js';
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
 * ADD for one attachment (container and interface), under its handle (`<network>.<containerID>`
 * for eth0, `<network>.<containerID>.<ifname>` otherwise). An attachment that already holds
 * addresses gets them back unchanged (a runtime retrying after a timeout). Otherwise the request
 * is validated before anything is written (named pools, gateway mode, `IP=`), then the node is
 * registered (file store) and, in gateway mode, the segment's gateway reserved. With CNI_ARGS
 * `IP=` that address is assigned (`intendedUse: Workload`) and returned as /32 or /128; otherwise
 * one address per enabled family is auto-assigned from the configured pools and returned with the
 * block's mask. In gateway mode addresses carry the segment's prefix and the result its gateway
 * and routes. Attributes: node, timestamp, pod and namespace, container ID and interface. When a
 * family comes up short (or the assignment throws with a partial result), whatever was assigned is
 * released before the error (`failed to request IPv4 addresses: ...`), so a failed ADD leaves
 * nothing allocated; a node it registered is unregistered again (unless a block was claimed for
 * it), so a failed ADD registers nothing either.
 */
export async function cmdAdd(ctx: CommandContext): Promise<IpamResult> {
  const { conf, client } = ctx;
  const { workload } = ctx;
  const attachment = { containerId: ctx.request.containerId, ifname: ctx.request.ifname };
  // A KubeVirt VM's handle (k8s/) is the VM's, not an attachment's: k8s-add.ts reuses its addresses.
  const handleId =
    workload?.handleId ?? handleIdFor(conf.name, attachment.containerId, attachment.ifname);
  // The pools each family draws from.
  const requested = { v4: conf.ipam.ipv4Pools, v6: conf.ipam.ipv6Pools };
  const held = workload?.handleId ? undefined : await readHeldAllocation(ctx.datastore, handleId);
  const plan = await validateAdd(ctx, requested);
  const ip = ctx.cniArgs.ip;
  const repeated =
    held &&
    repeatedAddResult({
      held,
      attachment,
      ...(ip !== undefined && { ip }),
      assignIpv4: conf.ipam.assignIpv4,
      assignIpv6: conf.ipam.assignIpv6,
      ...(plan && { plan }),
    });
  if (repeated) {
    ctx.log.info(`ADD repeated for ${handleId}: returning what it holds`);
    return repeated;
  }
  const registered = ctx.registerNode ? await ensureNode(client, ctx.nodename, ctx.log) : undefined;
  try {
    return await assign(ctx, { handleId, attachment, requested, plan });
  } catch (e) {
    if (registered) await unregisterNode(ctx.datastore, registered, ctx.log);
    throw e;
  }
}

/** ADD's writes once the request is validated and the node registered (see {@link cmdAdd}). */
async function assign(
  ctx: CommandContext,
  a: {
    handleId: string;
    attachment: { containerId: string; ifname: string };
    requested: RequestedPools;
    plan: GatewayPlan | undefined;
  },
): Promise<IpamResult> {
  const { conf, client, workload } = ctx;
  const { handleId, attachment, requested, plan } = a;
  const ip = ctx.cniArgs.ip;
  if (plan) await ensureGatewayReservation(ctx, plan);
  const attrs = {
    ...allocationAttrs({
      nodename: ctx.nodename,
      cniArgs: ctx.cniArgs,
      nowMs: ctx.nowMs(),
      attachment,
    }),
    ...workload?.attrs,
  };
  const cap = workload?.maxAllocToHandlePerIpVersion;
  if (ip !== undefined) {
    await client.assignIp({
      ip,
      hostname: ctx.nodename,
      handleId,
      attrs,
      intendedUse: 'Workload',
      ...(cap !== undefined && { maxAllocToHandlePerIpVersion: cap }),
    });
    return plan ? gatewayResult(plan, [ip]) : { ips: [`${ip}/${ip.includes(':') ? 128 : 32}`] };
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
      ...(requested.v4.length > 0 && { ipv4Pools: requested.v4 }),
      ...(requested.v6.length > 0 && { ipv6Pools: requested.v6 }),
      ...(workload?.namespace && { namespace: workload.namespace }),
      ...(cap !== undefined && { maxAllocToHandlePerIpVersion: cap }),
    });
  } catch (e) {
    await releaseAssigned(ctx, handleId, partialIps(e));
    throw e;
  }
  const ips = [...r.v4.ips, ...r.v6.ips];
  const short4 = partialFulfillmentError(r.v4);
  const short6 = partialFulfillmentError(r.v6);
  if (short4 || short6) {
    await releaseAssigned(ctx, handleId, ips);
    const [family, err] = short4 ? ['IPv4', short4] : ['IPv6', short6!];
    throw new CniError(
      CniErrorCode.Internal,
      `failed to request ${family} addresses: ${err.message}`,
    );
  }
  if (!plan) return { ips };
  try {
    return gatewayResult(plan, ips);
  } catch (e) {
    await releaseAssigned(ctx, handleId, ips);
    throw e;
  }
}
