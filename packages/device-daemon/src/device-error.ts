/** Every reason the device daemon refuses an input or an operation. Callers match on these. */
export type DeviceErrorCode =
  /** device.json is not JSON, or its `network` block has the wrong shape. */
  | 'InvalidDeviceJson'
  /** A pool definition is invalid (type, bridge name, subnet, gateway, nat flag). */
  | 'InvalidPool'
  /** A pool of type `macvlan`: reserved for future use, refused rather than half-supported. */
  | 'UnsupportedPoolType'
  /** Two pools overlap, or share a bridge. */
  | 'PoolConflict'
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
  /** A static address is outside its pool's subnet (or carries a different prefix). */
  | 'StaticOutsideSubnet'
  /** A static address is the network or broadcast address of its pool. */
  | 'StaticNotHostAddress'
  /** A static address is the gateway, or leased to another owner. */
  | 'StaticInUse'
  /** The pool has no free address left. */
  | 'PoolExhausted'
  /** The container is not part of the applied revision. */
  | 'UnknownContainer'
  /** No revision has been applied yet. */
  | 'NoRevision'
  /** The persisted lease file cannot be decoded. */
  | 'LeaseStoreCorrupt'
  /** A host operation (netlink, file system) failed. */
  | 'HostFailure'
  /** A request to the daemon API is malformed. */
  | 'BadRequest'
  /** The daemon's socket cannot be reached, or it answered something unreadable. */
  | 'DaemonUnavailable';

/** The one error class of the device daemon: `code` says what went wrong, `message` says it to a human. */
export class DeviceError extends Error {
  override readonly name = 'DeviceError';
  readonly code: DeviceErrorCode;

  constructor(code: DeviceErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** True when `e` is a {@link DeviceError}, optionally with the given code. */
export function isDeviceError(e: unknown, code?: DeviceErrorCode): e is DeviceError {
  return e instanceof DeviceError && (code === undefined || e.code === code);
}
