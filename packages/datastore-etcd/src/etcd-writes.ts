import { encodeCheckedValue, keyToPath } from '@netledger/ipam-core/adapter';
import type { DatastoreKey, DeleteOptions, KVPair, Kind, NewKVPair } from '@netledger/ipam-core';
import type { ValueByKind } from '@netledger/ipam-core/adapter';
import type { KvCompare, KvRequestOp, KvTxnResponse } from './etcd-kv.js';
import type { EtcdSession } from './etcd-session.js';
import { firstChangeAfter } from './first-change-after.js';
import { alreadyExists, conflict, missing, revisionOf } from './write-errors.js';

// Calico's etcdv3 CAS (libcalico-go backend/etcdv3): create = txn(Version == 0 ? Put : Get),
// update = txn(ModRevision == rev ? Put : Get), delete = txn(ModRevision == rev ? Delete : Get).
//
// A write whose answer is lost (connection dropped, leader killed, "request timed out") may or may
// not have committed. The transaction is then re-sent: it is a compare-and-swap, so it cannot apply
// twice. If the re-sent compare fails, etcd's history decides: the write committed exactly when the
// first change after the expected revision wrote our bytes (for a create: the key was created after
// the last revision this session had seen, with our bytes). Two writers that write identical bytes
// from the same revision cannot be told apart; both are told they succeeded.

/** Timeout for reading a key's history while resolving an unknown outcome. */
const HISTORY_TIMEOUT_MS = 5000;

/** The write operations of the etcd Datastore. */
export interface EtcdWrites {
  create<K extends Kind>(kv: NewKVPair<K>): Promise<KVPair<K>>;
  update<K extends Kind>(kv: KVPair<K>): Promise<KVPair<K>>;
  apply<K extends Kind>(kv: NewKVPair<K>): Promise<KVPair<K>>;
  delete(key: DatastoreKey, options?: DeleteOptions): Promise<void>;
}

/**
 * Creates the compare-and-swap writes over `session`. Every write either succeeds, fails with a
 * definite outcome (`AlreadyExists`, `UpdateConflict`, `DoesNotExist`: nothing was written), or,
 * when etcd stays unreachable past the dial timeout, fails `Unavailable` saying the write may or may
 * not have been applied. A value no read could decode, or one over Kubernetes' object size (1.5 MiB
 * encoded, etcd's default request limit), is refused `InvalidArgument` naming the key before sending.
 */
export function createEtcdWrites(session: EtcdSession): EtcdWrites {
  const { kv: etcd } = session;

  const txn = (
    compare: KvCompare[],
    success: KvRequestOp[],
    path: Buffer,
  ): Promise<KvTxnResponse> =>
    etcd.txn({ compare, success, failure: [{ request_range: { key: path } }] });

  const written = <K extends Kind>(
    key: DatastoreKey<K>,
    value: ValueByKind[K],
    at: { readonly modRevision: string; readonly createRevision: string },
  ): KVPair<K> => ({ key, value, revision: at.modRevision, uid: at.createRevision });

  /** Runs a write: re-sends after connection failures, with `resolve` told the outcome is unknown. */
  const write = <T>(path: string, attempt: (outcomeUnknown: boolean) => Promise<T>): Promise<T> => {
    let unknown = false;
    return session.retrying(() => attempt(unknown), {
      path,
      onRetry: () => (unknown = true),
      outcomeUnknown: () => true,
    });
  };

  return {
    async create(kv) {
      session.assertOpen();
      const path = keyToPath(kv.key);
      const key = Buffer.from(path);
      const { text, value } = encodeCheckedValue(kv.key, kv.value);
      // A key created at or below this revision existed before this create was sent.
      const existedBefore = session.seenRevision();
      return write(path, async (unknown) => {
        const res = await txn(
          [{ key, target: 'Version', result: 'Equal', version: 0 }],
          [{ request_put: { key, value: Buffer.from(text) } }],
          key,
        );
        if (res.succeeded) {
          const { revision } = res.header;
          return written(kv.key, value, { modRevision: revision, createRevision: revision });
        }
        const current = res.responses[0]?.response_range?.kvs[0];
        if (unknown && current && BigInt(current.create_revision) > existedBefore) {
          // Did our lost create make this key? Read the value it was created with. (Identical bytes
          // created before this create was sent, say by an earlier create of the same handle, are
          // not ours: taking them for ours would skip a count and leave the handle under-counting.)
          const atCreate = await etcd.range({ key, revision: current.create_revision });
          const first = atCreate.kvs[0];
          if (first?.value.toString('utf8') === text) {
            return written(kv.key, value, {
              modRevision: first.mod_revision,
              createRevision: first.create_revision,
            });
          }
        }
        throw alreadyExists(path);
      });
    },

    async update(kv) {
      session.assertOpen();
      const path = keyToPath(kv.key);
      const key = Buffer.from(path);
      const revision = revisionOf(kv.key, kv.revision);
      const { text, value } = encodeCheckedValue(kv.key, kv.value);
      return write(path, async (unknown) => {
        const res = await txn(
          [{ key, target: 'Mod', result: 'Equal', mod_revision: revision }],
          [{ request_put: { key, value: Buffer.from(text), prev_kv: true } }],
          key,
        );
        if (res.succeeded) {
          const prev = res.responses[0]?.response_put?.prev_kv;
          return written(kv.key, value, {
            modRevision: res.header.revision,
            createRevision: prev?.create_revision ?? res.header.revision,
          });
        }
        if (unknown) {
          const change = await firstChangeAfter(etcd, path, {
            after: revision,
            timeoutMs: HISTORY_TIMEOUT_MS,
          });
          if (change.type === 'put' && change.value?.toString('utf8') === text) {
            return written(kv.key, value, change);
          }
        }
        throw res.responses[0]?.response_range?.kvs[0] ? conflict(kv.key) : missing(kv.key);
      });
    },

    async apply(kv) {
      session.assertOpen();
      const path = keyToPath(kv.key);
      const { text, value } = encodeCheckedValue(kv.key, kv.value);
      // An unconditional put: re-sending it after a lost answer leaves the same state.
      return write(path, async () => {
        const res = await etcd.put({
          key: Buffer.from(path),
          value: Buffer.from(text),
          prev_kv: true,
        });
        return written(kv.key, value, {
          modRevision: res.header.revision,
          createRevision: res.prev_kv?.create_revision ?? res.header.revision,
        });
      });
    },

    async delete(dkey, options = {}) {
      session.assertOpen();
      const path = keyToPath(dkey);
      const key = Buffer.from(path);
      const compare: KvCompare[] = [{ key, target: 'Version', result: 'Greater', version: 0 }];
      if (options.revision !== undefined) {
        compare.push({
          key,
          target: 'Mod',
          result: 'Equal',
          mod_revision: revisionOf(dkey, options.revision),
        });
      }
      if (options.uid !== undefined) {
        compare.push({
          key,
          target: 'Create',
          result: 'Equal',
          create_revision: revisionOf(dkey, options.uid),
        });
      }
      await write(path, async (unknown) => {
        const res = await txn(compare, [{ request_delete_range: { key } }], key);
        if (res.succeeded) return;
        const current = res.responses[0]?.response_range?.kvs[0];
        if (unknown) {
          // The key is gone, as asked; with a revision, history tells whether we removed it.
          if (options.revision === undefined && !current) return;
          if (options.revision !== undefined) {
            const change = await firstChangeAfter(etcd, path, {
              after: options.revision,
              timeoutMs: HISTORY_TIMEOUT_MS,
            });
            if (change.type === 'delete') return;
          }
        }
        throw current ? conflict(dkey) : missing(dkey);
      });
    },
  };
}
