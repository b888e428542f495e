import { keyToPath } from '@netledger/ipam-core/adapter';
import type { DatastoreKey, DeleteOptions } from '@netledger/ipam-core';
import type { KvCompare } from './etcd-kv.js';
import type { EtcdSession } from './etcd-session.js';
import { firstChangeAfter } from './first-change-after.js';
import { HISTORY_TIMEOUT_MS, casTxn, resendWrite } from './resend-write.js';
import { conflict, missing, revisionOf } from './write-errors.js';

/** What a delete compares: the key exists, and at `revision` / with `uid` when given. */
function deleteCompare(dkey: DatastoreKey, key: Buffer, options: DeleteOptions): KvCompare[] {
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
  return compare;
}

/**
 * Deletes `dkey` when it exists (and is at `options.revision` / has `options.uid` when given).
 * Fails `UpdateConflict` or `DoesNotExist`, nothing deleted; after a lost answer, a key now gone
 * (without a revision) or the first change after the revision (with one) decides.
 */
export async function casDelete(
  session: EtcdSession,
  dkey: DatastoreKey,
  options: DeleteOptions = {},
): Promise<void> {
  session.assertOpen();
  const path = keyToPath(dkey);
  const key = Buffer.from(path);
  const compare = deleteCompare(dkey, key, options);
  await resendWrite(session, path, async (unknown) => {
    const res = await casTxn(session, {
      compare,
      success: [{ request_delete_range: { key } }],
      key,
    });
    if (res.succeeded) return;
    const current = res.responses[0]?.response_range?.kvs[0];
    if (unknown) {
      // The key is gone, as asked; with a revision, history tells whether we removed it.
      if (options.revision === undefined && !current) return;
      if (options.revision !== undefined) {
        const change = await firstChangeAfter(session.kv, path, {
          after: options.revision,
          timeoutMs: HISTORY_TIMEOUT_MS,
        });
        if (change.type === 'delete') return;
      }
    }
    throw current ? conflict(dkey) : missing(dkey);
  });
}
