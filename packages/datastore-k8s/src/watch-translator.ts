// Kubernetes watch events as Datastore watch events. Blocks, affinities and handles are
// soft-deleted (Calico sets `deleted: true` before removing them): that update is the delete, and
// the object's later hard delete is not reported again.
import type { DatastoreKey, KVPair, WatchEvent } from '@netledger/ipam-core';

const deletedFlag = (kv: KVPair): boolean => (kv.value as { deleted?: unknown }).deleted === true;

/**
 * A translator for one watch: `(type, kv, revision)` gives the event to report for a Kubernetes
 * `ADDED`/`MODIFIED`/`DELETED` of `kv`, or undefined when there is none to report. It remembers the
 * soft-deleted objects it reported, by uid.
 */
export function createWatchTranslator(
  softDelete: boolean,
): (type: string, kv: KVPair, revision: string) => WatchEvent | undefined {
  const reported = new Set<string>();
  return (type, kv, revision) => {
    const uid = kv.uid ?? '';
    if (type === 'DELETED') {
      if (reported.delete(uid)) return undefined;
      return { type: 'deleted', key: kv.key as DatastoreKey, previous: kv, revision };
    }
    if (softDelete && deletedFlag(kv)) {
      if (reported.has(uid)) return undefined;
      reported.add(uid);
      return type === 'ADDED'
        ? undefined
        : { type: 'deleted', key: kv.key as DatastoreKey, previous: kv, revision };
    }
    return { type: type === 'ADDED' ? 'added' : 'modified', kv, revision };
  };
}
