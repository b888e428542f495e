import { CniError, CniErrorCode } from './cni-error.js';
import type { IpamResult } from './cni-result.js';
import { gatewayResult } from './gateway-mode.js';
import type { GatewayPlan } from './gateway-mode.js';
import { describeAttachment, isHeldBy } from './held-allocation.js';
import type { HeldAllocation } from './held-allocation.js';
import type { AttachmentId } from './workload-identity.js';

/** What a repeated ADD asks for: the attachment, and the addresses the first one was given. */
export interface RepeatedAdd {
  readonly held: HeldAllocation;
  readonly attachment: AttachmentId;
  /** CNI_ARGS `IP=`, when given. */
  readonly ip?: string;
  readonly assignIpv4: boolean;
  readonly assignIpv6: boolean;
  readonly plan?: GatewayPlan;
}

const isV6 = (ip: string): boolean => ip.includes(':');

/**
 * The result of an ADD for an attachment that already holds addresses (a runtime retrying after
 * a timeout): the same addresses, shaped as the first ADD returned them (block mask, /32 for
 * `IP=`, or the segment's prefix and gateway). Pure. An `IP=` whose family the attachment holds
 * no address of yet gives `undefined`: it is assigned beside them (Calico's `ipAddrs` assigns a
 * pod's IPv4 and IPv6 addresses one `IP=` at a time). Fails (999) when the handle belongs to
 * another attachment (handles of dotted container IDs can coincide), or when what it holds is not
 * what this ADD asks for (another address of the family, other families): DEL it first.
 */
export function repeatedAddResult(r: RepeatedAdd): IpamResult | undefined {
  const { held, attachment } = r;
  if (!isHeldBy(held, attachment)) {
    throw new CniError(
      CniErrorCode.Internal,
      `netledger-ipam: handle ${held.handleId} holds the addresses of ${describeAttachment(held.owner)}, not of ${describeAttachment(attachment)}`,
    );
  }
  const ordered = [...held.addresses].sort((a, b) => Number(isV6(a.ip)) - Number(isV6(b.ip)));
  const ips = ordered.map((a) => a.ip);
  const mismatch = (): CniError =>
    new CniError(
      CniErrorCode.Internal,
      `netledger-ipam: ${describeAttachment(attachment)} already holds [${ips.join(' ')}] under ${held.handleId}, which is not what this ADD asks for: DEL it first`,
    );
  if (r.ip !== undefined) {
    const ip = r.ip;
    if (!ips.includes(ip)) {
      if (ips.some((a) => isV6(a) === isV6(ip))) throw mismatch();
      return undefined;
    }
    return r.plan ? gatewayResult(r.plan, [ip]) : { ips: [`${ip}/${isV6(ip) ? 128 : 32}`] };
  }
  const v4 = ips.filter((ip) => !isV6(ip)).length;
  const v6 = ips.length - v4;
  if (v4 !== (r.assignIpv4 ? 1 : 0) || v6 !== (r.assignIpv6 ? 1 : 0)) throw mismatch();
  if (r.plan) return gatewayResult(r.plan, ips);
  return {
    ips: ordered.map((a) => `${a.ip}/${a.blockCidr.split('/')[1]!}`),
  };
}
