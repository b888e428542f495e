/**
 * One error class for the whole IPAM surface. Callers match on `code`, never on message text.
 *
 * `kind` says what a caller may do about it:
 * - `transient`: a lost compare-and-swap race; retried inside `withCasRetry`, never seen by callers.
 * - `validation`: the request is wrong or impossible as stated; surfaced.
 * - `reevaluate`: the world moved on (a stale sequence number, a block that is no longer empty);
 *   skip it and look again on the next pass.
 */
export type IpamErrorCode =
  | 'DoesNotExist'
  | 'AlreadyExists'
  | 'UpdateConflict'
  | 'BadSequenceNumber'
  | 'BadHandle'
  | 'BlockLimit'
  | 'NoFreeBlocks'
  | 'NoQualifiedPool'
  | 'StrictAffinity'
  | 'UseRequired'
  | 'ConfigConflict'
  | 'InvalidArgument'
  | 'IpInCooldown'
  | 'MaxRetries'
  | 'BlockNotEmpty'
  | 'BlockClaimConflict'
  | 'StaleAffinity'
  | 'WatchExpired'
  | 'CorruptValue'
  | 'Unavailable'
  | 'OperationNotSupported'
  | 'PreconditionFailed'
  | 'PermissionDenied';

/** Which way an error should be handled; see {@link IpamError}. */
export type IpamErrorKind = 'transient' | 'validation' | 'reevaluate';

const kindByCode: Record<IpamErrorCode, IpamErrorKind> = {
  DoesNotExist: 'validation',
  AlreadyExists: 'validation',
  UpdateConflict: 'transient',
  BadSequenceNumber: 'reevaluate',
  BadHandle: 'validation',
  BlockLimit: 'validation',
  // No pool has room for a new block (Calico's noFreeBlocksError): autoAssign borrows or says so
  // in its messages, ensureBlock fails NoQualifiedPool; callers never see it.
  NoFreeBlocks: 'validation',
  NoQualifiedPool: 'validation',
  StrictAffinity: 'validation',
  UseRequired: 'validation',
  ConfigConflict: 'validation',
  InvalidArgument: 'validation',
  IpInCooldown: 'validation',
  MaxRetries: 'validation',
  BlockNotEmpty: 'reevaluate',
  BlockClaimConflict: 'transient',
  StaleAffinity: 'transient',
  WatchExpired: 'validation',
  CorruptValue: 'validation',
  Unavailable: 'validation',
  OperationNotSupported: 'validation',
  PreconditionFailed: 'validation',
  // The datastore refused the credentials or the operation (authentication failed, a user given
  // to an etcd without authentication, no permission): retrying with the same settings cannot help.
  PermissionDenied: 'validation',
};

/** Options for {@link IpamError}: what it is about, and data a caller may need. */
export interface IpamErrorOptions {
  /** The key, address or name the error is about. */
  identifier?: string;
  /** Results obtained before the error (Calico returns some errors together with partial results). */
  partial?: unknown;
  cause?: unknown;
}

/** The error type of every IPAM operation. */
export class IpamError extends Error {
  override readonly name = 'IpamError';
  readonly code: IpamErrorCode;
  readonly kind: IpamErrorKind;
  readonly identifier: string | undefined;
  readonly partial: unknown;

  constructor(code: IpamErrorCode, message: string, options: IpamErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.kind = kindByCode[code];
    this.identifier = options.identifier;
    this.partial = options.partial;
  }
}

/** True when `e` is an {@link IpamError}, optionally with one of the given codes. */
export function isIpamError(e: unknown, ...codes: IpamErrorCode[]): e is IpamError {
  return e instanceof IpamError && (codes.length === 0 || codes.includes(e.code));
}
