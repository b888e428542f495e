import type { IpamErrorCode } from '@netledger/ipam-core';
import { IpamError } from '@netledger/ipam-core';
import type { JsonValue } from '@netledger/ipam-core/adapter';

/** What a failed API call was about, for the error message. */
export interface KubeCallContext {
  /** `https://host:port` of the API server. */
  readonly server: string;
  /** `GET`, `PUT`, ... */
  readonly method: string;
  /** e.g. `ipamblocks/10-0-0-0-26` or `blockaffinities`. */
  readonly object: string;
  /** The netledger key, for the error's identifier. */
  readonly identifier?: string;
  /** Retries made before the answer reported (a 429 or a read's 5xx each time). */
  readonly retried?: { readonly count: number; readonly waitedMs: number };
}

const isObject = (v: unknown): v is Record<string, JsonValue> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The `reason` and `message` of a Kubernetes `Status` body, if it is one. */
function statusOf(body: JsonValue | undefined): { reason?: string; message?: string } {
  if (!isObject(body) || body.kind !== 'Status') return {};
  return {
    ...(typeof body.reason === 'string' && { reason: body.reason }),
    ...(typeof body.message === 'string' && { message: body.message }),
  };
}

/** The IpamError code for an HTTP status and a Status reason from the API server. */
function codeForStatus(status: number, reason: string | undefined): IpamErrorCode {
  if (status === 404) return 'DoesNotExist';
  if (status === 409) return reason === 'AlreadyExists' ? 'AlreadyExists' : 'UpdateConflict';
  if (status === 410) return 'WatchExpired';
  if (status === 400 || status === 422) return 'InvalidArgument';
  return 'Unavailable';
}

/**
 * Maps an API server error response to an `IpamError` that names the server and the object:
 * 404 `DoesNotExist` (or `Unavailable` when the CRD itself is missing), 409 `AlreadyExists` /
 * `UpdateConflict`, 410 `WatchExpired`, 400/422 `InvalidArgument` (the CRD's validation refused
 * the value), 401/403 and anything else `Unavailable` (with the server's reason, e.g. which user
 * may not do what).
 */
export function kubeStatusError(
  status: number,
  body: JsonValue | undefined,
  ctx: KubeCallContext,
): IpamError {
  const { reason, message } = statusOf(body);
  let code = codeForStatus(status, reason);
  let detail = message ?? (typeof body === 'string' ? body.trim() : `HTTP ${status}`);
  if (status === 404 && reason === undefined) {
    // A plain-text 404 is the API server saying it does not serve the resource at all.
    code = 'Unavailable';
    detail = `the resource type is not served (are Calico's CRDs applied?): ${detail}`;
  }
  const what =
    status === 401
      ? 'refused the credentials'
      : status === 403
        ? 'forbids it'
        : code === 'Unavailable'
          ? `failed (HTTP ${status})`
          : `answered ${reason ?? status}`;
  const retried =
    ctx.retried === undefined
      ? ''
      : ` (after ${ctx.retried.count} ${ctx.retried.count === 1 ? 'retry' : 'retries'} over ${ctx.retried.waitedMs} ms)`;
  return new IpamError(
    code,
    `kube-apiserver at ${ctx.server} ${what} for ${ctx.method} ${ctx.object}: ${detail}${retried}`,
    ctx.identifier === undefined ? {} : { identifier: ctx.identifier },
  );
}

/** An `Unavailable` error for a request that got no answer (connection failure, timeout). */
export function kubeTransportError(
  e: unknown,
  ctx: KubeCallContext & { readonly write: boolean },
): IpamError {
  const message = e instanceof Error ? e.message : String(e);
  const unknown = ctx.write ? `; the write to ${ctx.object} may or may not have been applied` : '';
  return new IpamError(
    'Unavailable',
    `kube-apiserver at ${ctx.server} unreachable for ${ctx.method} ${ctx.object}: ${message}${unknown}`,
    { ...(ctx.identifier !== undefined && { identifier: ctx.identifier }), cause: e },
  );
}
