import { decodeValue } from '@netledger/ipam-core/adapter';
import type { DatastoreKey, KVPair, Kind } from '@netledger/ipam-core';

/** The parts of an etcd key-value this adapter reads. */
export interface RawKeyValue {
  readonly value: Buffer;
  readonly mod_revision: string;
  readonly create_revision: string;
}

/**
 * A `KVPair` from an etcd key-value: the value decoded from Calico's JSON (`CorruptValue` naming the
 * key when it is not), `revision` = mod revision, `uid` = create revision (it changes when a key is
 * deleted and created again, like a Kubernetes UID).
 */
export function toKvPair<K extends Kind>(key: DatastoreKey<K>, kv: RawKeyValue): KVPair<K> {
  return {
    key,
    value: decodeValue(key, kv.value.toString('utf8')),
    revision: kv.mod_revision,
    uid: kv.create_revision,
  };
}
