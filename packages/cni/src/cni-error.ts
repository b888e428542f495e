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
 * Maps anything thrown while serving a command to a {@link CniError}: a `CniError` passes
 * through; a store configuration error is a decoding error (6), an unsupported field (2) or an
 * invalid network config (7: a bad or unavailable store); an unreachable or contended datastore (`Unavailable`, `MaxRetries`, a transient
 * `IpamError`) is "try again later" (11); every other error is internal (999) with its message,
 * as calico-ipam reports them.
 */
export function toCniError(e: unknown): CniError {
  if (e instanceof CniError) return e;
  if (isDatastoreConfigError(e)) return fromDatastoreConfigError(e);
  if (isIpamError(e)) {
    const retry = e.code === 'Unavailable' || e.code === 'MaxRetries' || e.kind === 'transient';
    return new CniError(retry ? CniErrorCode.TryAgainLater : CniErrorCode.Internal, e.message, {
      cause: e,
    });
  }
  const msg = e instanceof Error ? e.message : String(e);
  return new CniError(CniErrorCode.Internal, msg, { cause: e });
}
