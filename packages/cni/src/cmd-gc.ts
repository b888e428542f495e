import { isIpamError } from '@netledger/ipam-core';
import { blockAllocations, sanitizeHandle } from '@netledger/ipam-core/block';
import type { CommandContext } from './command-context.js';
import { CniError, CniErrorCode } from './cni-error.js';
import { handleIdFor } from './workload-identity.js';

/**
 * GC: releases this node's allocations of this network (handles `<network>.<containerID>` whose
 * `node` attribute is this node) whose container is not in `cni.dev/valid-attachments`. A config
 * without that key is refused (invalid network config, 7) and releases nothing: only an explicit
 * list, empty included, says which attachments are valid. Addresses in cooldown are already
 * released and are skipped. Returns the handles released; a handle released concurrently is not
 * an error.
 */
export async function cmdGc(ctx: CommandContext): Promise<string[]> {
  if (ctx.conf.validAttachments === undefined) {
    throw new CniError(
      CniErrorCode.InvalidNetworkConfig,
      'GC needs "cni.dev/valid-attachments" in the network config (an empty list when none are valid); without it nothing is released',
    );
  }
  const prefix = `${ctx.conf.name}.`;
  const valid = new Set(
    ctx.conf.validAttachments.map((a) => handleIdFor(ctx.conf.name, a.containerID)),
  );
  const stale = new Set<string>();
  const { items } = await ctx.datastore.list({ kind: 'IPAMBlock' });
  for (const { value: block } of items) {
    for (const a of blockAllocations(block)) {
      if (a.handle === undefined || a.coolingDown || a.node !== ctx.nodename) continue;
      const handle = sanitizeHandle(a.handle);
      if (handle.startsWith(prefix) && !valid.has(handle)) stale.add(handle);
    }
  }
  const released: string[] = [];
  for (const handle of stale) {
    try {
      await ctx.client.releaseByHandle(handle);
      released.push(handle);
      ctx.log.info(`GC released handle ${handle}`);
    } catch (e) {
      if (!isIpamError(e, 'DoesNotExist')) throw e;
    }
  }
  return released;
}
