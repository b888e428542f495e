import { isIpamError } from '@netledger/ipam-core';
import type { Datastore } from '@netledger/ipam-core';
import { blockAllocations, sanitizeHandle } from '@netledger/ipam-core/block';
import { DEFAULT_INTERFACE, ownerOf } from './workload-identity.js';
import type { AttachmentId } from './workload-identity.js';

/** One live address of a handle, with the block it was allocated from. */
interface HeldAddress {
  readonly ip: string;
  readonly blockCidr: string;
}

/** What a handle holds now: its live addresses and the attachment their attributes name. */
export interface HeldAllocation {
  readonly handleId: string;
  readonly addresses: readonly HeldAddress[];
  /** Undefined when the attributes name none (calico-ipam's allocations; see `ownerOf`). */
  readonly owner: AttachmentId | undefined;
}

/**
 * Reads a handle and its blocks (two reads for one block) and returns its live addresses
 * (released ones cooling down excluded), or `undefined` when the handle does not exist or holds
 * nothing live. Reads only: it never repairs a handle that over-counts.
 */
export async function readHeldAllocation(
  datastore: Datastore,
  handleId: string,
): Promise<HeldAllocation | undefined> {
  let blocks: string[];
  try {
    blocks = Object.keys((await datastore.get({ kind: 'IPAMHandle', handleId })).value.block);
  } catch (e) {
    if (isIpamError(e, 'DoesNotExist')) return undefined;
    throw e;
  }
  const addresses: HeldAddress[] = [];
  let owner: AttachmentId | undefined;
  for (const cidr of blocks) {
    let block;
    try {
      block = (await datastore.get({ kind: 'IPAMBlock', cidr })).value;
    } catch (e) {
      if (isIpamError(e, 'DoesNotExist')) continue;
      throw e;
    }
    for (const a of blockAllocations(block)) {
      if (a.coolingDown || a.handle === undefined || sanitizeHandle(a.handle) !== handleId)
        continue;
      addresses.push({ ip: a.ip, blockCidr: a.blockCidr });
      owner ??= ownerOf(a.attrs);
    }
  }
  return addresses.length === 0 ? undefined : { handleId, addresses, owner };
}

/**
 * Whether a held allocation is this attachment's. One whose attributes name no attachment was
 * made under calico-ipam's `<network>.<containerID>` handle, and belongs to that container's
 * default interface.
 */
export function isHeldBy(held: HeldAllocation, a: AttachmentId): boolean {
  if (held.owner === undefined) return a.ifname === DEFAULT_INTERFACE;
  return held.owner.containerId === a.containerId && held.owner.ifname === a.ifname;
}

/** "container X interface Y", for messages. */
export function describeAttachment(a: AttachmentId | undefined): string {
  return a === undefined
    ? 'an attachment that recorded no container'
    : `container ${a.containerId} interface ${a.ifname}`;
}
