import { IpamError } from '@netledger/ipam-core';
import { describeKey } from '@netledger/ipam-core/adapter';
import type { DatastoreKey } from '@netledger/ipam-core';

// The definite failures of the etcd writes, one definition for the single calls and `transact`, so
// a write fails with the same code, message and identifier either way.

const REVISION = /^[1-9][0-9]*$/;

/** `revision` when it is an etcd revision (a positive decimal); else `InvalidArgument` naming `key`. */
export function revisionOf(key: DatastoreKey, revision: string): string {
  if (!REVISION.test(revision)) {
    throw new IpamError(
      'InvalidArgument',
      `revision ${JSON.stringify(revision)} of ${describeKey(key)} is not an etcd revision`,
      { identifier: describeKey(key) },
    );
  }
  return revision;
}

/** A create found its key taken (identified by the etcd path, as Calico names it). */
export const alreadyExists = (path: string): IpamError =>
  new IpamError('AlreadyExists', `resource already exists: ${path}`, { identifier: path });

/** An update or delete found no object. */
export const missing = (key: DatastoreKey): IpamError =>
  new IpamError('DoesNotExist', `resource does not exist: ${describeKey(key)}`, {
    identifier: describeKey(key),
  });

/** An update or delete found the object at another revision (or, for a delete, another uid). */
export const conflict = (key: DatastoreKey): IpamError =>
  new IpamError('UpdateConflict', `update conflict: ${describeKey(key)}`, {
    identifier: describeKey(key),
  });
