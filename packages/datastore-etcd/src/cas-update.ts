import { encodeCheckedValue, keyToPath } from '@netledger/ipam-core/adapter';
import type { KVPair, Kind } from '@netledger/ipam-core';
import type { EtcdSession } from './etcd-session.js';
import { firstChangeAfter } from './first-change-after.js';
import { HISTORY_TIMEOUT_MS, casTxn, resendWrite, writtenPair } from './resend-write.js';
import { conflict, missing, revisionOf } from './write-errors.js';

/**
 * Replaces `kv` when its key is still at `kv.revision` (txn ModRevision == rev ? Put : Get). Fails
 * `UpdateConflict` (another revision) or `DoesNotExist` (no key), nothing written; after a lost
 * answer, the first change after `kv.revision` decides whether the lost attempt wrote it.
 */
export async function casUpdate<K extends Kind>(
  session: EtcdSession,
  kv: KVPair<K>,
): Promise<KVPair<K>> {
  session.assertOpen();
  const path = keyToPath(kv.key);
  const key = Buffer.from(path);
  const revision = revisionOf(kv.key, kv.revision);
  const { text, value } = encodeCheckedValue(kv.key, kv.value);
  return resendWrite(session, path, async (unknown) => {
    const res = await casTxn(session, {
      compare: [{ key, target: 'Mod', result: 'Equal', mod_revision: revision }],
      success: [{ request_put: { key, value: Buffer.from(text), prev_kv: true } }],
      key,
    });
    if (res.succeeded) {
      const prev = res.responses[0]?.response_put?.prev_kv;
      return writtenPair(kv.key, value, {
        modRevision: res.header.revision,
        createRevision: prev?.create_revision ?? res.header.revision,
      });
    }
    if (unknown) {
      const change = await firstChangeAfter(session.kv, path, {
        after: revision,
        timeoutMs: HISTORY_TIMEOUT_MS,
      });
      if (change.type === 'put' && change.value?.toString('utf8') === text) {
        return writtenPair(kv.key, value, change);
      }
    }
    throw res.responses[0]?.response_range?.kvs[0] ? conflict(kv.key) : missing(kv.key);
  });
}
