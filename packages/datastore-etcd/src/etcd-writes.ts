import { encodeCheckedValue, keyToPath } from '@netledger/ipam-core/adapter';
import type { DatastoreKey, DeleteOptions, KVPair, Kind, NewKVPair } from '@netledger/ipam-core';
import { casCreate } from './cas-create.js';
import { casDelete } from './cas-delete.js';
import { casUpdate } from './cas-update.js';
import type { EtcdSession } from './etcd-session.js';
import { resendWrite, writtenPair } from './resend-write.js';

/** The write operations of the etcd Datastore. */
export interface EtcdWrites {
  create<K extends Kind>(kv: NewKVPair<K>): Promise<KVPair<K>>;
  update<K extends Kind>(kv: KVPair<K>): Promise<KVPair<K>>;
  apply<K extends Kind>(kv: NewKVPair<K>): Promise<KVPair<K>>;
  delete(key: DatastoreKey, options?: DeleteOptions): Promise<void>;
}

/** Writes `kv` whatever the key holds (an unconditional put). */
async function putApply<K extends Kind>(
  session: EtcdSession,
  kv: NewKVPair<K>,
): Promise<KVPair<K>> {
  session.assertOpen();
  const path = keyToPath(kv.key);
  const { text, value } = encodeCheckedValue(kv.key, kv.value);
  // An unconditional put: re-sending it after a lost answer leaves the same state.
  return resendWrite(session, path, async () => {
    const res = await session.kv.put({
      key: Buffer.from(path),
      value: Buffer.from(text),
      prev_kv: true,
    });
    return writtenPair(kv.key, value, {
      modRevision: res.header.revision,
      createRevision: res.prev_kv?.create_revision ?? res.header.revision,
    });
  });
}

/**
 * Creates the compare-and-swap writes over `session` (see resend-write.ts). Every write either
 * succeeds, fails with a definite outcome (`AlreadyExists`, `UpdateConflict`, `DoesNotExist`:
 * nothing was written), or, when etcd stays unreachable past the dial timeout, fails `Unavailable`
 * saying the write may or may not have been applied. A value no read could decode, or one over
 * Kubernetes' object size (1.5 MiB encoded, etcd's default request limit), is refused
 * `InvalidArgument` naming the key before sending.
 */
export function createEtcdWrites(session: EtcdSession): EtcdWrites {
  return {
    create: (kv) => casCreate(session, kv),
    update: (kv) => casUpdate(session, kv),
    apply: (kv) => putApply(session, kv),
    delete: (key, options) => casDelete(session, key, options),
  };
}
