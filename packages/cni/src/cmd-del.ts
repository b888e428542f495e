import { isIpamError } from '@netledger/ipam-core';
import type { CommandContext } from './command-context.js';
import { handleIdFor, workloadIdFor } from './workload-identity.js';

/**
 * DEL: releases handle `<network>.<containerID>`, then the legacy workload ID (`<ns>.<pod>` for
 * Kubernetes, else the container ID). A handle that does not exist is not an error, so a DEL of
 * something never added (or deleted twice) succeeds; any other error is returned.
 */
export async function cmdDel(ctx: CommandContext): Promise<void> {
  const ids = [
    handleIdFor(ctx.conf.name, ctx.request.containerId),
    workloadIdFor(ctx.cniArgs, ctx.request.containerId),
  ];
  for (const id of new Set(ids)) {
    try {
      await ctx.client.releaseByHandle(id);
      ctx.log.info(`released handle ${id}`);
    } catch (e) {
      if (!isIpamError(e, 'DoesNotExist')) throw e;
      ctx.log.debug(`handle ${id} does not exist: nothing to release`);
    }
  }
}
