import { isDatastoreConfigError } from '@netledger/datastore-config';
import type { DatastoreConfigError, DatastoreConfigErrorCode } from '@netledger/datastore-config';
import { isIpamError } from '@netledger/ipam-core';

/** The CNI specification's error codes (plus libcni's 999 for internal errors). */
export const CniErrorCode = {
  IncompatibleCniVersion: 1,
  UnsupportedField: 2,
  UnknownContainer: 3,
  InvalidEnvironmentVariables: 4,
  IoFailure: 5,
  DecodingFailure: 6,
  InvalidNetworkConfig: 7,
  TryAgainLater: 11,
  PluginNotAvailable: 50,
  Internal: 999,
} as const;

/** A code of {@link CniErrorCode}. */
export type CniErrorCodeValue = (typeof CniErrorCode)[keyof typeof CniErrorCode];

/** An error the plugin reports as the spec's error JSON (`code`, `msg`, `details`). */
export class CniError extends Error {
  override readonly name = 'CniError';
  readonly code: CniErrorCodeValue;
  readonly details: string | undefined;

  constructor(
    code: CniErrorCodeValue,
    msg: string,
    options: { details?: string; cause?: unknown } = {},
  ) {
    super(msg, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = options.details;
  }
}

/** The spec code of each store configuration error, as calico-ipam reports them. */
const DATASTORE_CONFIG_CODES: Record<DatastoreConfigErrorCode, CniErrorCodeValue> = {
  WrongType: CniErrorCode.DecodingFailure,
  InvalidValue: CniErrorCode.InvalidNetworkConfig,
  Unsupported: CniErrorCode.UnsupportedField,
  NotAvailable: CniErrorCode.InvalidNetworkConfig,
  NoDatastore: CniErrorCode.InvalidNetworkConfig,
};

function fromDatastoreConfigError(e: DatastoreConfigError): CniError {
  // A value of the wrong JSON type is a netconf decoding error, worded as calico-ipam words it.
  const msg = e.code === 'WrongType' ? `failed to load netconf: ${e.message}` : e.message;
  return new CniError(DATASTORE_CONFIG_CODES[e.code], msg, { cause: e });
}

/**
 * File system errors that say a store location cannot work, whatever the moment: a directory that
 * cannot be written, a path through a regular file (ENOTDIR, or EEXIST when the directory to
 * create is a file), a read-only file system. A configuration error (7), unlike a full disk or a
 * held lock, which may pass.
 */
const PERMANENT_ERRNO: ReadonlySet<string> = new Set([
  'EEXIST',
  'EACCES',
  'EPERM',
  'EROFS',
  'ENOTDIR',
  'EISDIR',
  'ELOOP',
  'ENAMETOOLONG',
]);

/** The errno code of `e` or of an error in its `cause` chain. */
function errnoIn(e: unknown): string | undefined {
  for (let c = e, depth = 0; c instanceof Error && depth < 5; c = c.cause, depth++) {
    const code = (c as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return code;
  }
  return undefined;
}

/** Where an error arose: opening the datastore, or serving the command on it. */
export type ErrorPhase = 'open' | 'command';

/**
 * Maps anything thrown while serving a command to a {@link CniError}. A `CniError` passes through;
 * a store configuration error is a decoding error (6), an unsupported field (2) or an invalid
 * network config (7: a bad or unavailable store). Of the `IpamError`s, the permanent ones are
 * invalid network config (7): the datastore refusing the credentials or permission
 * (`PermissionDenied`: a wrong password, a user given to an etcd without authentication), a store
 * location that cannot work (an `Unavailable` caused by EACCES, EROFS, ENOTDIR, ...), and, while
 * opening the store, a wrong argument (`InvalidArgument`: a path that is a directory). The
 * transient ones are "try again later" (11): an unreachable or contended datastore
 * (`Unavailable`), `MaxRetries`, a transient `IpamError`. Every other error is internal (999)
 * with its message, as calico-ipam reports them.
 */
export function toCniError(e: unknown, phase: ErrorPhase = 'command'): CniError {
  if (e instanceof CniError) return e;
  if (isDatastoreConfigError(e)) return fromDatastoreConfigError(e);
  if (isIpamError(e)) {
    const permanent =
      e.code === 'PermissionDenied' ||
      (e.code === 'Unavailable' && PERMANENT_ERRNO.has(errnoIn(e) ?? '')) ||
      (phase === 'open' && e.code === 'InvalidArgument');
    const retry = e.code === 'Unavailable' || e.code === 'MaxRetries' || e.kind === 'transient';
    const code = permanent
      ? CniErrorCode.InvalidNetworkConfig
      : retry
        ? CniErrorCode.TryAgainLater
        : CniErrorCode.Internal;
    return new CniError(code, e.message, { cause: e });
  }
  const msg = e instanceof Error ? e.message : String(e);
  return new CniError(CniErrorCode.Internal, msg, { cause: e });
}
