import { isIpamError } from '@netledger/ipam-core';
import { blockAllocations, sanitizeHandle } from '@netledger/ipam-core/block';
import type { CommandContext } from './command-context.js';
import { CniError, CniErrorCode } from './cni-error.js';
import type { Attachment } from './net-conf.js';
import { ownerOf } from './workload-identity.js';
import type { AttachmentId } from './workload-identity.js';

/**
 * Whether an allocation of handle `<network>.<rest>` belongs to a valid attachment. One whose
 * attributes name its attachment is valid when an entry names that container and interface (an
 * entry without `ifname` covers every interface of its container). One made without them
 * (calico-ipam, or netledger before it recorded them, which used `<network>.<containerID>` for
 * every interface) is valid when any entry names the container `<rest>`.
 */
function isValidAttachment(
  owner: AttachmentId | undefined,
  handleRest: string,
  valid: readonly Attachment[],
): boolean {
  if (owner === undefined) return valid.some((a) => a.containerID === handleRest);
  return valid.some(
    (a) => a.containerID === owner.containerId && (a.ifname === '' || a.ifname === owner.ifname),
  );
}

/**
 * GC: releases this node's allocations of this network (handles `<network>.<containerID>` and
 * `<network>.<containerID>.<ifname>` whose `node` attribute is this node) whose attachment,
 * container AND interface, is not in `cni.dev/valid-attachments` ({@link isValidAttachment}); a
 * KubeVirt VM's addresses (`vmi-name` attribute) are never its to release. A
 * config without that key is refused (invalid network config, 7) and releases nothing: only an
 * explicit list, empty included, says which attachments are valid. Addresses in cooldown are
 * already released and are skipped. Returns the handles released; a handle released concurrently
 * is not an error.
 */
export async function cmdGc(ctx: CommandContext): Promise<string[]> {
  const valid = ctx.conf.validAttachments;
  if (valid === undefined) {
    throw new CniError(
      CniErrorCode.InvalidNetworkConfig,
      'GC needs "cni.dev/valid-attachments" in the network config (an empty list when none are valid); without it nothing is released',
    );
  }
  const prefix = `${ctx.conf.name}.`;
  const stale = new Set<string>();
  const kept = new Set<string>();
  const { items } = await ctx.datastore.list({ kind: 'IPAMBlock' });
  for (const { value: block } of items) {
    for (const a of blockAllocations(block)) {
      if (a.handle === undefined || a.coolingDown || a.node !== ctx.nodename) continue;
      // A KubeVirt VM's addresses follow the VM, not a pod's attachment (k8s/k8s-del.ts).
      if (a.kind === 'vm') continue;
      const handle = sanitizeHandle(a.handle);
      if (!handle.startsWith(prefix)) continue;
      const rest = handle.slice(prefix.length);
      if (isValidAttachment(ownerOf(a.attrs), rest, valid)) kept.add(handle);
      else stale.add(handle);
    }
  }
  const released: string[] = [];
  for (const handle of stale) {
    // A handle with one live address of a valid attachment is kept whole.
    if (kept.has(handle)) continue;
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
