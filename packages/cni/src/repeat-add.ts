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
 * `IP=`, or the segment's prefix and gateway). Pure. Fails (999) when the handle belongs to
 * another attachment (handles of dotted container IDs can coincide), or when what it holds is not
 * what this ADD asks for (another `IP=`, other families): DEL it first.
 */
export function repeatedAddResult(r: RepeatedAdd): IpamResult {
  const { held, attachment } = r;
  if (!isHeldBy(held, attachment)) {
    throw new CniError(
      CniErrorCode.Internal,
      `netledger-ipam: handle ${held.handleId} holds the addresses of ${describeAttachment(held.owner)}, not of ${describeAttachment(attachment)}`,
    );
  }
  const ordered = [...held.addresses].sort((a, b) => Number(isV6(a.ip)) - Number(isV6(b.ip)));
  const ips = ordered.map((a) => a.ip);
  const v4 = ips.filter((ip) => !isV6(ip)).length;
  const v6 = ips.length - v4;
  const matches =
    r.ip !== undefined
      ? ips.length === 1 && ips[0] === r.ip
      : v4 === (r.assignIpv4 ? 1 : 0) && v6 === (r.assignIpv6 ? 1 : 0);
  if (!matches) {
    throw new CniError(
      CniErrorCode.Internal,
      `netledger-ipam: ${describeAttachment(attachment)} already holds [${ips.join(' ')}] under ${held.handleId}, which is not what this ADD asks for: DEL it first`,
    );
  }
  if (r.plan) return gatewayResult(r.plan, ips);
  if (r.ip !== undefined) return { ips: [`${r.ip}/${isV6(r.ip) ? 128 : 32}`] };
  return {
    ips: ordered.map((a) => `${a.ip}/${a.blockCidr.split('/')[1]!}`),
  };
}
