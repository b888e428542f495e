import { isIpamError } from '../errors.js';
import type { DatastoreKey, Kind } from '../model/keys.js';
import type { Datastore, DeleteOptions, KVPair, TransactionWrite } from './datastore.js';
import type { MirrorScope } from './mirror-scope.js';
import type { MirrorState } from './mirror-state.js';
import type { MirrorSync } from './mirror-sync.js';
import { parseRevision } from './revision.js';

/** What the write-through calls of a read mirror work on. */
export interface MirrorWriteContext {
  readonly inner: Datastore;
  readonly state: MirrorState;
  readonly scope: MirrorScope;
  readonly sync: Pick<MirrorSync, 'learn'>;
}

type Writes = Pick<Datastore, 'create' | 'update' | 'apply' | 'delete' | 'transact'>;

/** Whether a write failed because the caller's view of the key was stale. */
const isStaleWrite = (e: unknown): boolean =>
  isIpamError(e, 'UpdateConflict', 'AlreadyExists', 'DoesNotExist');

/** After a write conflicted on a mirrored key: read the key from the store so a retry sees it. */
async function refresh(c: MirrorWriteContext, key: DatastoreKey): Promise<void> {
  const before = c.state.get(key);
  try {
    const kv = await c.inner.get(key);
    c.sync.learn(() => c.state.observePut(kv));
  } catch (e) {
    if (isIpamError(e, 'DoesNotExist') && before)
      c.sync.learn(() => c.state.observeGone(key, parseRevision(before.revision)));
    // Other errors: the key converges through the watch, or the next conflict refreshes it.
  }
}

async function write<T>(
  c: MirrorWriteContext,
  key: DatastoreKey,
  perform: () => Promise<T>,
): Promise<T> {
  try {
    return await perform();
  } catch (e) {
    if (c.scope.holds(key) && isStaleWrite(e)) await refresh(c, key);
    throw e;
  }
}

async function writeThrough<K extends Kind>(
  c: MirrorWriteContext,
  key: DatastoreKey<K>,
  perform: () => Promise<KVPair<K>>,
): Promise<KVPair<K>> {
  const kv = await write(c, key, perform);
  if (c.scope.holds(key)) c.sync.learn(() => c.state.observePut(kv));
  return kv;
}

/**
 * The version a delete surely removes: the one it names, else the one known now (a version the
 * watch brings in meanwhile may be a re-create after it, so it is not used).
 */
function goneRevision(
  c: MirrorWriteContext,
  key: DatastoreKey,
  o: DeleteOptions | undefined,
): string | undefined {
  return c.scope.holds(key) ? (o?.revision ?? c.state.get(key)?.revision) : undefined;
}

function learnGone(c: MirrorWriteContext, key: DatastoreKey, gone: string | undefined): void {
  if (gone !== undefined && c.scope.holds(key))
    c.sync.learn(() => c.state.observeGone(key, parseRevision(gone)));
}

async function transactThrough(
  c: MirrorWriteContext,
  transact: NonNullable<Datastore['transact']>,
  writes: readonly TransactionWrite[],
): Promise<(KVPair | undefined)[]> {
  const keys = writes.map((w) => (w.op === 'delete' ? w.key : w.kv.key));
  const gone = writes.map((w) =>
    w.op === 'delete' ? goneRevision(c, w.key, w.options) : undefined,
  );
  let results;
  try {
    results = await transact(writes);
  } catch (e) {
    if (isStaleWrite(e))
      await Promise.all(keys.filter((k) => c.scope.holds(k)).map((k) => refresh(c, k)));
    throw e;
  }
  for (const [i, kv] of results.entries()) {
    if (kv) {
      if (c.scope.holds(kv.key)) c.sync.learn(() => c.state.observePut(kv));
    } else learnGone(c, keys[i]!, gone[i]);
  }
  return results;
}

/**
 * A read mirror's writes: each goes to the store (so every IPAM write stays a compare-and-swap),
 * and its result is applied to the mirror for read-your-writes. A write on a mirrored key failing
 * `UpdateConflict`, `AlreadyExists` or `DoesNotExist` refreshes the key from the store before the
 * error is rethrown. `transact` is there exactly when the store has it.
 */
export function createMirrorWrites(c: MirrorWriteContext): Writes {
  const transact = c.inner.transact?.bind(c.inner);
  return {
    create: (kv) => writeThrough(c, kv.key, () => c.inner.create(kv)),
    update: (kv) => writeThrough(c, kv.key, () => c.inner.update(kv)),
    apply: (kv) => writeThrough(c, kv.key, () => c.inner.apply(kv)),
    async delete(key, deleteOptions) {
      const gone = goneRevision(c, key, deleteOptions);
      await write(c, key, () => c.inner.delete(key, deleteOptions));
      learnGone(c, key, gone);
    },
    ...(transact && { transact: (writes) => transactThrough(c, transact, writes) }),
  };
}
