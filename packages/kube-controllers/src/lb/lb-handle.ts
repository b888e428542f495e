import { createHash } from 'node:crypto';

/** Kubernetes' DNS-1123 subdomain limit, which Calico truncates LoadBalancer handles to. */
const MAX_HANDLE_LENGTH = 253;

/** The prefix of every LoadBalancer handle (Calico's). */
const LOAD_BALANCER_HANDLE_PREFIX = 'lb-';

function hashedHandle(text: string): string {
  const hash = createHash('sha256').update(text).digest('base64url').replace(/[-_.]/g, '');
  return `${LOAD_BALANCER_HANDLE_PREFIX}${hash}`.slice(0, MAX_HANDLE_LENGTH);
}

/**
 * The handle of a Service's LoadBalancer addresses, Calico's `createHandle`: `lb-` and the
 * unpadded base64url SHA-256 of `lower(name-namespace-uid)` with `-`, `_` and `.` removed,
 * truncated to 253 characters. A Service re-created under the same name has a new uid, so a new
 * handle.
 */
export function loadBalancerHandle(svc: {
  readonly name: string;
  readonly namespace: string;
  readonly uid: string;
}): string {
  return hashedHandle(`${svc.name}-${svc.namespace}-${svc.uid}`.toLowerCase());
}

/**
 * The handle of the addresses Services of one namespace share under a sharing key (netledger's;
 * Calico has no sharing). Same shape as a Service's; the hashed text holds a `/`, which no
 * Service name or namespace can, so it never equals one.
 */
export function sharedAddressHandle(args: {
  readonly namespace: string;
  readonly sharingKey: string;
}): string {
  return hashedHandle(`sharing-key/${args.namespace}/${args.sharingKey}`);
}
