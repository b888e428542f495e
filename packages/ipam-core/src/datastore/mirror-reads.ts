import { IpamError } from '../errors.js';
import { describeKey } from '../model/keys.js';
import type { DatastoreKey, Kind, ListOptions } from '../model/keys.js';
import type { Datastore, KVPair, ListResult } from './datastore.js';
import type { MirrorScope } from './mirror-scope.js';
import type { MirrorState } from './mirror-state.js';
import type { MirrorSync } from './mirror-sync.js';

/** What the reads of a read mirror work on. */
export interface MirrorReadContext {
  readonly inner: Datastore;
  readonly state: MirrorState;
  readonly scope: MirrorScope;
  readonly sync: Pick<MirrorSync, 'ready' | 'isSynced'>;
}

type Reads = Pick<Datastore, 'get' | 'list' | 'listMany'>;

const missing = (key: DatastoreKey): IpamError =>
  new IpamError('DoesNotExist', `resource does not exist: ${describeKey(key)}`, {
    identifier: describeKey(key),
  });

/** The lowest watermark of the kinds: the mirror has every change of each up to it. */
function revisionOf(state: MirrorState, mirroredKinds: readonly Kind[]): string {
  let min: bigint | undefined;
  for (const k of mirroredKinds) {
    const w = state.watermark(k)!;
    if (min === undefined || w < min) min = w;
  }
  return String(min);
}

/** A `listMany` answering the lists the mirror covers from memory and the rest from the store. */
async function listManyThrough(
  c: MirrorReadContext,
  listMany: NonNullable<Datastore['listMany']>,
  many: readonly ListOptions[],
): Promise<ListResult[]> {
  const mine = many.filter((o) => c.scope.covered(o));
  if (mine.length === 0 || !(await c.sync.ready())) return listMany(many);
  const rest = many.filter((o) => !c.scope.covered(o));
  const fromInner = rest.length > 0 ? await listMany(rest) : [];
  // The watch may have failed while the store answered: then the store answers everything.
  if (!c.sync.isSynced()) return listMany(many);
  const revision = revisionOf(
    c.state,
    mine.map((o) => o.kind),
  );
  let next = 0;
  return many.map((o) =>
    c.scope.covered(o) ? { items: c.state.list(o), revision } : fromInner[next++]!,
  );
}

/**
 * A read mirror's reads: once synced, a `get` of a key it holds and a `list` it covers are
 * answered from memory with the store's order, filtering and `DoesNotExist` errors; everything
 * else, and everything while not synced, goes to the store. `listMany` is there exactly when the
 * store has it.
 */
export function createMirrorReads(c: MirrorReadContext): Reads {
  const listMany = c.inner.listMany?.bind(c.inner);
  return {
    async get<K extends Kind>(key: DatastoreKey<K>): Promise<KVPair<K>> {
      if (!c.scope.holds(key) || !(await c.sync.ready())) return c.inner.get(key);
      const kv = c.state.get(key);
      if (!kv) throw missing(key);
      return kv as KVPair<K>;
    },
    async list<K extends Kind>(listOptions: ListOptions<K>): Promise<ListResult<K>> {
      if (!c.scope.covered(listOptions) || !(await c.sync.ready()))
        return c.inner.list(listOptions);
      return {
        items: c.state.list(listOptions) as KVPair<K>[],
        revision: revisionOf(c.state, [listOptions.kind]),
      };
    },
    ...(listMany && { listMany: (many) => listManyThrough(c, listMany, many) }),
  };
}
