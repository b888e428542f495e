import type { SlimService } from '@netledger/ipam-core/load-balancer';
import { SERVICE_ANNOTATIONS } from '@netledger/ipam-core/load-balancer';

/** What a sharing key may be: a label value (1-63 letters, digits, `-`, `_`, `.`; alphanumeric ends). */
export const SHARING_KEY_PATTERN = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;

/** The Service's sharing key when it is a valid one (an invalid one is reported by the request check). */
export function sharingKeyOf(svc: SlimService): string | undefined {
  const key = svc.metadata.annotations[SERVICE_ANNOTATIONS.sharingKey];
  return key !== undefined && SHARING_KEY_PATTERN.test(key) ? key : undefined;
}
