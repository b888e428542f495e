import type { DatastoreKey, KVPair, Kind } from '@netledger/ipam-core';
import type { ValueByKind } from '@netledger/ipam-core/adapter';
import type { KvCompare, KvRequestOp, KvTxnResponse } from './etcd-kv.js';
import type { EtcdSession } from './etcd-session.js';

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
export const HISTORY_TIMEOUT_MS = 5000;

/**
 * Runs a write over `session`: re-sends it after connection failures, telling `attempt` whether an
 * earlier attempt's outcome is unknown. Fails as `session.retrying` does, saying the outcome is
 * unknown.
 */
export function resendWrite<T>(
  session: EtcdSession,
  path: string,
  attempt: (outcomeUnknown: boolean) => Promise<T>,
): Promise<T> {
  let unknown = false;
  return session.retrying(() => attempt(unknown), {
    path,
    onRetry: () => (unknown = true),
    outcomeUnknown: () => true,
  });
}

/** Sends one compare-and-swap transaction on `key`, whose failure branch reads the key. */
export function casTxn(
  session: EtcdSession,
  ops: { readonly compare: KvCompare[]; readonly success: KvRequestOp[]; readonly key: Buffer },
): Promise<KvTxnResponse> {
  return session.kv.txn({
    compare: ops.compare,
    success: ops.success,
    failure: [{ request_range: { key: ops.key } }],
  });
}

/** The pair a successful write leaves at `at`. */
export function writtenPair<K extends Kind>(
  key: DatastoreKey<K>,
  value: ValueByKind[K],
  at: { readonly modRevision: string; readonly createRevision: string },
): KVPair<K> {
  return { key, value, revision: at.modRevision, uid: at.createRevision };
}
