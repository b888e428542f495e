import { IpamError, isIpamError } from '../errors.js';
import type { DatastoreKey } from '../model/keys.js';
import { describeKey, keyToPath } from '../model/keys.js';

/** `DoesNotExist` for a key a store does not hold, as every store words it. */
export function doesNotExistError(key: DatastoreKey): IpamError {
  return new IpamError('DoesNotExist', `resource does not exist: ${describeKey(key)}`, {
    identifier: describeKey(key),
  });
}

/** `UpdateConflict` for a write whose revision or uid precondition no longer holds. */
export function updateConflictError(key: DatastoreKey): IpamError {
  return new IpamError('UpdateConflict', `update conflict: ${describeKey(key)}`, {
    identifier: describeKey(key),
  });
}

/** `AlreadyExists` for a create of a key that holds an object (named by its path). */
export function alreadyExistsError(key: DatastoreKey): IpamError {
  const path = keyToPath(key);
  return new IpamError('AlreadyExists', `resource already exists: ${path}`, { identifier: path });
}

/**
 * True when `e` is a store's refusal of a write to `key` (`AlreadyExists`, `UpdateConflict`,
 * `DoesNotExist` naming it as the errors above do): in a transaction, which write was refused.
 */
export function refusesKey(e: unknown, key: DatastoreKey): boolean {
  return (
    isIpamError(e, 'AlreadyExists', 'UpdateConflict', 'DoesNotExist') &&
    (e.identifier === describeKey(key) || e.identifier === keyToPath(key))
  );
}
