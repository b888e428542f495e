import type { HostReservedAttr } from '../block/new-block.js';
import { IpamError } from '../errors.js';
import type { IPPoolAllowedUse } from '../model/resources.js';

/** What one IP version of an `autoAssign` produced. A short result is data, not an error. */
export interface IpamAssignments {
  /** Addresses with the block's mask (`10.0.0.5/26`), or a host mask when reused for a capped handle. */
  readonly ips: string[];
  readonly numRequested: number;
  /** De-duplicated explanations of a short result. */
  readonly msgs: string[];
  readonly ipVersion: 4 | 6;
  readonly hostReservedAttr?: HostReservedAttr;
}

/** A request for addresses from pools chosen by IPAM (Calico's `AutoAssignArgs`). */
export interface AutoAssignArgs {
  readonly num4: number;
  readonly num6?: number;
  readonly hostname: string;
  readonly handleId?: string;
  readonly attrs?: Readonly<Record<string, string>>;
  /** Pools to use, by CIDR or name, in order; node and namespace selectors are then ignored. */
  readonly ipv4Pools?: readonly string[];
  readonly ipv6Pools?: readonly string[];
  /** Per-request cap on the host's blocks per version; the smaller of this and the global one wins. */
  readonly maxBlocksPerHost?: number;
  readonly intendedUse: IPPoolAllowedUse;
  readonly namespace?: {
    readonly name: string;
    readonly labels?: Readonly<Record<string, string>>;
  };
  readonly hostReservedAttrIPv4s?: HostReservedAttr;
  readonly hostReservedAttrIPv6s?: HostReservedAttr;
  /** KubeVirt: a handle holds at most this many addresses per version; more requests get those back. */
  readonly maxAllocToHandlePerIpVersion?: number;
}

/** An empty result for a version that was not requested. */
export function emptyAssignments(version: 4 | 6, numRequested = 0): IpamAssignments {
  return { ips: [], numRequested, msgs: [], ipVersion: version };
}

/**
 * Calico's `PartialFulfillmentError`: undefined when every requested address was assigned, else an
 * error saying "Assigned N out of M requested IPvX addresses" followed by each message.
 */
export function partialFulfillmentError(a: IpamAssignments): IpamError | undefined {
  if (a.ips.length >= a.numRequested) return undefined;
  let text = `Assigned ${a.ips.length} out of ${a.numRequested} requested IPv${a.ipVersion} addresses`;
  for (const m of a.msgs) text += `; ${m}`;
  if (a.hostReservedAttr) text += `; HostReservedAttr: ${a.hostReservedAttr.handle}`;
  return new IpamError('InvalidArgument', text, { partial: a });
}
