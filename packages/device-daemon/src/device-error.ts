/** Every reason the device daemon refuses an input or an operation. Callers match on these. */
export type DeviceErrorCode =
  /** device.json is not JSON, or its `network` block has the wrong shape. */
  | 'InvalidDeviceJson'
  /** A pool definition is invalid (type, bridge name, subnets, gateways, nat flags). */
  | 'InvalidPool'
  /** A pool of type `macvlan`: reserved for future use, refused rather than half-supported. */
  | 'UnsupportedPoolType'
  /** Two pools overlap, or share a bridge. */
  | 'PoolConflict'
  /** A pool's subnet overlaps a route the host already has through an interface that is not the daemon's bridge. */
  | 'RouteConflict'
  /** A revision would release leases of running containers or delete bridges that have ports; applied only when forced. */
  | 'DropsInUse'
  /** A run.json (or its `network` block) is not valid. */
  | 'InvalidRunJson'
  /** An lxc.container.conf cannot be read as `key = value` lines or holds a bad address. */
  | 'InvalidLxcConfig'
  /** PV_NETWORK_* template arguments are inconsistent. */
  | 'InvalidTemplateArgs'
  /** A container references a pool that the applied revision does not define. */
  | 'UnknownPool'
  /** A pool-using container's lxc.container.conf bakes `lxc.net.*` entries. */
  | 'BakedLxcNet'
  /** A static address is outside its pool's subnet (or carries a different prefix, or the pool has no subnet of its family). */
  | 'StaticOutsideSubnet'
  /** A static address is the network or broadcast address (IPv6: the subnet-router anycast address) of its pool. */
  | 'StaticNotHostAddress'
  /** A static address is the gateway, or leased to another owner. */
  | 'StaticInUse'
  /** The pool has no free address left. */
  | 'PoolExhausted'
  /** The container is not part of the applied revision. */
  | 'UnknownContainer'
  /** No revision has been applied yet. */
  | 'NoRevision'
  /** The start needs something that the last, refused, revision would have changed. */
  | 'RevisionRefused'
  /** The persisted lease file or last good revision cannot be decoded. */
  | 'LeaseStoreCorrupt'
  /** A host operation (netlink, file system) failed. */
  | 'HostFailure'
  /** A request to the daemon API is malformed. */
  | 'BadRequest'
  /** The daemon's socket cannot be reached, or it answered something unreadable. */
  | 'DaemonUnavailable';

/**
 * The one error shape the daemon shows to the outside: in API answers (`{"error": ErrorBody}`),
 * in reports (`containers[].error`), in `--output json` and in log lines (the `error` field).
 */
export interface ErrorBody {
  readonly code: DeviceErrorCode;
  readonly message: string;
  /** Where in the input the problem is, e.g. `network.pools.internal.subnet`, when known. */
  readonly field?: string;
}

/** The one error class of the device daemon: `code` says what went wrong, `message` says it to a human. */
export class DeviceError extends Error {
  override readonly name = 'DeviceError';
  readonly code: DeviceErrorCode;
  /** The offending field (a path into the input file), when known. */
  readonly field: string | undefined;

  constructor(
    code: DeviceErrorCode,
    message: string,
    options?: { readonly cause?: unknown; readonly field?: string | undefined },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.field = options?.field;
  }
}

/** True when `e` is a {@link DeviceError}, optionally with the given code. */
export function isDeviceError(e: unknown, code?: DeviceErrorCode): e is DeviceError {
  return e instanceof DeviceError && (code === undefined || e.code === code);
}

/** The {@link ErrorBody} of an error (`field` only when known). */
export function toErrorBody(e: DeviceError): ErrorBody {
  return e.field === undefined
    ? { code: e.code, message: e.message }
    : { code: e.code, message: e.message, field: e.field };
}

/**
 * A path into a JSON document for {@link ErrorBody.field}: `network.pools.internal.subnet`,
 * `interfaces[0].name`; a key that is not a plain identifier is written `["a key"]`.
 */
export function fieldPath(...parts: readonly (string | number)[]): string {
  let out = '';
  for (const p of parts) {
    if (typeof p === 'number') out += `[${p}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_-]*$/.test(p)) out += out === '' ? p : `.${p}`;
    else out += `[${JSON.stringify(p)}]`;
  }
  return out;
}
