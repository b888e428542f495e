import { isIpamError } from '@netledger/ipam-core';
import type { CommandContext } from './command-context.js';
import { describeAttachment, isHeldBy, readHeldAllocation } from './held-allocation.js';
import {
  DEFAULT_INTERFACE,
  handleIdFor,
  mayShareHandle,
  workloadIdFor,
} from './workload-identity.js';

async function release(ctx: CommandContext, id: string): Promise<void> {
  try {
    await ctx.client.releaseByHandle(id);
    ctx.log.info(`released handle ${id}`);
  } catch (e) {
    if (!isIpamError(e, 'DoesNotExist')) throw e;
    ctx.log.debug(`handle ${id} does not exist: nothing to release`);
  }
}

/**
 * DEL of one attachment: releases its handle (`<network>.<containerID>` for eth0,
 * `<network>.<containerID>.<ifname>` otherwise), so the container's other interfaces keep their
 * addresses. For the default interface it then releases the legacy workload ID (`<ns>.<pod>` for
 * Kubernetes, else the container ID), as calico-ipam does. A handle whose attributes name another
 * attachment (handles of dotted container IDs can coincide) is left alone. A handle that does not
 * exist is not an error, so a DEL of something never added (or deleted twice) succeeds; any other
 * error is returned.
 */
export async function cmdDel(ctx: CommandContext): Promise<void> {
  const attachment = { containerId: ctx.request.containerId, ifname: ctx.request.ifname };
  const handleId = handleIdFor(ctx.conf.name, attachment.containerId, attachment.ifname);
  // Only an attachment whose handle another one could share pays for reading the owner first.
  const held = mayShareHandle(attachment)
    ? await readHeldAllocation(ctx.datastore, handleId)
    : undefined;
  if (held && !isHeldBy(held, attachment)) {
    ctx.log.info(
      `handle ${handleId} holds the addresses of ${describeAttachment(held.owner)}: not released`,
    );
  } else {
    await release(ctx, handleId);
  }
  if (attachment.ifname !== DEFAULT_INTERFACE) return;
  const legacy = workloadIdFor(ctx.cniArgs, attachment.containerId);
  if (legacy !== handleId) await release(ctx, legacy);
}
