import { IpamError } from '@netledger/ipam-core';
import { EtcdKvError } from './etcd-kv-error.js';

/**
 * How the adapter treats an error from etcd:
 * - `retry`: the connection failed or etcd could not commit (no leader, leader changed, timed out);
 *   a read can be retried, a write's outcome is unknown until it is resolved.
 * - `compacted`: the requested revision has been compacted away.
 * - `closed`: the client was closed.
 * - `rejected`: etcd refused the request (authentication, permission, a user given to an etcd
 *   without authentication); retrying will not help.
 * - `invalid`: etcd rejected the request as malformed (too large, bad argument).
 * - `other`: anything else; surfaced as `Unavailable`.
 */
export type EtcdErrorClass = 'retry' | 'compacted' | 'closed' | 'rejected' | 'invalid' | 'other';

/**
 * etcd's refusals of the client's user or permissions, whichever transport carried them. A user
 * given to an etcd without authentication is refused too (FailedPrecondition, "authentication is
 * not enabled"): the settings are wrong, not the moment.
 */
export const REJECTED_MESSAGES =
  /authentication failed|permission denied|invalid auth token|authentication is not enabled/;

const TRANSIENT_MESSAGES =
  /leader changed|no leader|request timed out|timed out|too many requests|stopped|connection|unavailable|ECONNREFUSED|ECONNRESET|EPIPE/i;

/**
 * Classifies an error from either etcd transport (see {@link EtcdErrorClass}). Both adapters
 * classify what their client throws and say so with an `EtcdKvError`; any other error is judged by
 * its message (a compacted revision, or a transient failure such as a timeout), else `other`.
 * This module loads neither transport's client.
 */
export function classifyEtcdError(e: unknown): EtcdErrorClass {
  if (e instanceof EtcdKvError) return e.errorClass;
  if (!(e instanceof Error)) return 'other';
  if (/required revision has been compacted/.test(e.message)) return 'compacted';
  if (REJECTED_MESSAGES.test(e.message)) return 'rejected';
  if (TRANSIENT_MESSAGES.test(e.message)) return 'retry';
  return 'other';
}

/** What {@link toIpamError} needs to phrase the error. */
export interface EtcdErrorContext {
  /** The endpoints, for the message: `etcd at <endpoints> unreachable: ...`. */
  readonly endpoints: string;
  /** The etcd key the operation was about, if any. */
  readonly path?: string;
  /** Set when a write was sent but its outcome could not be established. */
  readonly outcomeUnknown?: boolean;
}

/**
 * Maps an etcd error (classified by {@link classifyEtcdError}) to an `IpamError`: `Unavailable`
 * (unreachable, closed, or unknown), `PermissionDenied` (etcd refused the user, the password, the
 * certificate or the permission: retrying with the same settings cannot help), `WatchExpired`
 * (compacted revision) or `InvalidArgument` (etcd rejected the request as malformed). An
 * `IpamError` passes through.
 */
export function toIpamError(e: unknown, ctx: EtcdErrorContext): IpamError {
  if (e instanceof IpamError) return e;
  const message = e instanceof Error ? e.message : String(e);
  const about = ctx.path === undefined ? {} : { identifier: ctx.path };
  const unknown =
    ctx.outcomeUnknown && ctx.path
      ? `; the write to ${ctx.path} may or may not have been applied`
      : '';
  switch (classifyEtcdError(e)) {
    case 'compacted':
      return new IpamError('WatchExpired', `etcd at ${ctx.endpoints}: ${message}`, {
        ...about,
        cause: e,
      });
    case 'closed':
      return new IpamError('Unavailable', 'datastore is closed', { ...about, cause: e });
    case 'rejected':
      return new IpamError(
        'PermissionDenied',
        `etcd at ${ctx.endpoints} refused the request: ${message}`,
        {
          ...about,
          cause: e,
        },
      );
    case 'invalid':
      return new IpamError(
        'InvalidArgument',
        `etcd at ${ctx.endpoints} rejected the request: ${message}`,
        {
          ...about,
          cause: e,
        },
      );
    case 'retry':
      return new IpamError(
        'Unavailable',
        `etcd at ${ctx.endpoints} unreachable: ${message}${unknown}`,
        {
          ...about,
          cause: e,
        },
      );
    case 'other':
      return new IpamError('Unavailable', `etcd at ${ctx.endpoints} failed: ${message}${unknown}`, {
        ...about,
        cause: e,
      });
  }
}
