import { encodeCheckedValue, keyToPath } from '@netledger/ipam-core/adapter';
import type { KVPair, Kind, NewKVPair } from '@netledger/ipam-core';
import type { EtcdSession } from './etcd-session.js';
import { casTxn, resendWrite, writtenPair } from './resend-write.js';
import { alreadyExists } from './write-errors.js';

/**
 * Creates `kv` when its key is absent (txn Version == 0 ? Put : Get). Fails `AlreadyExists` when
 * the key is taken (nothing written); after a lost answer, the key's history decides whether the
 * lost attempt created it.
 */
export async function casCreate<K extends Kind>(
  session: EtcdSession,
  kv: NewKVPair<K>,
): Promise<KVPair<K>> {
  session.assertOpen();
  const path = keyToPath(kv.key);
  const key = Buffer.from(path);
  const { text, value } = encodeCheckedValue(kv.key, kv.value);
  // A key created at or below this revision existed before this create was sent.
  const existedBefore = session.seenRevision();
  return resendWrite(session, path, async (unknown) => {
    const res = await casTxn(session, {
      compare: [{ key, target: 'Version', result: 'Equal', version: 0 }],
      success: [{ request_put: { key, value: Buffer.from(text) } }],
      key,
    });
    if (res.succeeded) {
      const { revision } = res.header;
      return writtenPair(kv.key, value, { modRevision: revision, createRevision: revision });
    }
    const current = res.responses[0]?.response_range?.kvs[0];
    if (unknown && current && BigInt(current.create_revision) > existedBefore) {
      // Did our lost create make this key? Read the value it was created with. (Identical bytes
      // created before this create was sent, say by an earlier create of the same handle, are
      // not ours: taking them for ours would skip a count and leave the handle under-counting.)
      const atCreate = await session.kv.range({ key, revision: current.create_revision });
      const first = atCreate.kvs[0];
      if (first?.value.toString('utf8') === text) {
        return writtenPair(kv.key, value, {
          modRevision: first.mod_revision,
          createRevision: first.create_revision,
        });
      }
    }
    throw alreadyExists(path);
  });
}
