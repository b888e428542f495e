// Calico's KDD has no IPAM host objects: what the Kubernetes datastore answers for one.
import type { DatastoreKey } from '@netledger/ipam-core';
import { IpamError } from '@netledger/ipam-core';
import { describeKey } from '@netledger/ipam-core/adapter';

/** Throws `OperationNotSupported` for `op` (create, update, apply) of an IPAM host. */
export function ipamHostNotSupported(key: DatastoreKey, op: string): never {
  throw new IpamError(
    'OperationNotSupported',
    `${op} of ${describeKey(key)} is not supported on Kubernetes (Calico's KDD has no IPAM host objects)`,
    { identifier: describeKey(key) },
  );
}

/** Throws `DoesNotExist` for a read or delete of an IPAM host. */
export function noIpamHost(key: DatastoreKey): never {
  throw new IpamError(
    'DoesNotExist',
    `${describeKey(key)} does not exist (no IPAM host objects on Kubernetes)`,
    { identifier: describeKey(key) },
  );
}
