import { isIpamError, sanitizeHandle } from '@netledger/ipam-core';
import type { CommandContext } from './command-context.js';
import { handleIdFor } from './workload-identity.js';

/**
 * GC: releases this node's allocations of this network (handles `<network>.<containerID>` whose
 * `node` attribute is this node) whose container is not in `cni.dev/valid-attachments`. An
 * absent list is taken as empty, as the spec says. Addresses in cooldown are already released
 * and are skipped. Returns the handles released; a handle released concurrently is not an error.
 */
export async function cmdGc(ctx: CommandContext): Promise<string[]> {
  const prefix = `${ctx.conf.name}.`;
  const valid = new Set(
    (ctx.conf.validAttachments ?? []).map((a) => handleIdFor(ctx.conf.name, a.containerID)),
  );
  const stale = new Set<string>();
  const { items } = await ctx.datastore.list({ kind: 'IPAMBlock' });
  for (const { value: block } of items) {
    for (const idx of block.allocations) {
      const attr = idx === null ? undefined : block.attributes[idx];
      if (attr?.handleId === undefined || attr.releasedAt !== undefined) continue;
      const handle = sanitizeHandle(attr.handleId);
      if (!handle.startsWith(prefix) || valid.has(handle)) continue;
      if (attr.activeOwnerAttrs?.['node'] !== ctx.nodename) continue;
      stale.add(handle);
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
