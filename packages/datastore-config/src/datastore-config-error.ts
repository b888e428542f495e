/**
 * Why a store's configuration was refused or could not be opened: `WrongType` (a value of the
 * wrong JSON or YAML type), `InvalidValue` (an unknown store type, no etcd endpoints, a bad
 * endpoint or TLS file, a bad calicoctl config document), `Unsupported` (a setting netledger
 * refuses, such as `etcd_discovery_srv`, or what a store does not offer: repair of etcd or
 * Kubernetes), `NotAvailable` (a store this version cannot open yet),
 * `NoDatastore` (no file store where one must already exist).
 */
export type DatastoreConfigErrorCode =
  'WrongType' | 'InvalidValue' | 'Unsupported' | 'NotAvailable' | 'NoDatastore';

/** The one error class of this package; each app maps its `code` to its own errors. */
export class DatastoreConfigError extends Error {
  override readonly name = 'DatastoreConfigError';
  constructor(
    readonly code: DatastoreConfigErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** True when `e` is a {@link DatastoreConfigError}, optionally with one of the given codes. */
export function isDatastoreConfigError(
  e: unknown,
  ...codes: DatastoreConfigErrorCode[]
): e is DatastoreConfigError {
  return e instanceof DatastoreConfigError && (codes.length === 0 || codes.includes(e.code));
}
