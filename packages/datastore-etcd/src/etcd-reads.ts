import { IpamError } from '@netledger/ipam-core';
import {
  describeKey,
  keyToPath,
  listPrefixes,
  matchesListOptions,
  pathToKey,
} from '@netledger/ipam-core/adapter';
import type { DatastoreKey, KVPair, Kind, ListOptions, ListResult } from '@netledger/ipam-core';
import type { EtcdSession } from './etcd-session.js';
import { prefixRange } from './prefix-range.js';
import { toKvPair } from './to-kv-pair.js';

/** Keys per range request while listing, so a large list never hits a message size limit. */
const LIST_PAGE_SIZE = 500;

/** The read operations of the etcd Datastore. */
export interface EtcdReads {
  get<K extends Kind>(key: DatastoreKey<K>): Promise<KVPair<K>>;
  list<K extends Kind>(options: ListOptions<K>): Promise<ListResult<K>>;
  listMany(options: readonly ListOptions[]): Promise<ListResult[]>;
}

/** At most this many range requests go into one `listMany` transaction (etcd's default cap is 128). */
const MAX_RANGES_PER_TXN = 64;

/**
 * Appends the objects under `at.prefix` that match `at.options` to `at.items`, page by page, at
 * `at.revision` (or, when undefined, at the first page's revision); returns the revision read at.
 */
async function listPrefix<K extends Kind>(
  session: EtcdSession,
  at: {
    readonly prefix: string;
    readonly revision: string | undefined;
    readonly options: ListOptions<K>;
    readonly items: KVPair<K>[];
  },
): Promise<string | undefined> {
  const range = prefixRange(at.prefix);
  let revision = at.revision;
  let start = range.start;
  for (;;) {
    const page = await session.retrying(
      () =>
        session.kv.range({
          key: start,
          range_end: range.end,
          limit: LIST_PAGE_SIZE,
          ...(revision !== undefined && { revision }),
        }),
      { path: at.prefix },
    );
    revision ??= page.header.revision;
    for (const kv of page.kvs) {
      const key = pathToKey(kv.key.toString('utf8'));
      if (key && matchesListOptions(key, at.options)) {
        at.items.push(toKvPair(key as DatastoreKey<K>, kv));
      }
    }
    const last = page.kvs[page.kvs.length - 1];
    if (!page.more || !last) return revision;
    start = Buffer.concat([last.key, Buffer.from([0])]);
  }
}

/**
 * Creates linearizable reads over `session`. `get` fails `DoesNotExist`; `list` reads every prefix
 * of `listPrefixes(options)` in key order, page by page, all at one store revision (the first
 * page's header revision, which it returns). A value that is not valid Calico JSON makes either
 * fail `CorruptValue` naming the key: a list never silently drops an object.
 */
export function createEtcdReads(session: EtcdSession): EtcdReads {
  const { kv: etcd } = session;
  return {
    async get(key) {
      session.assertOpen();
      const path = keyToPath(key);
      const res = await session.retrying(() => etcd.range({ key: Buffer.from(path) }), {
        path,
      });
      const kv = res.kvs[0];
      if (!kv) {
        throw new IpamError('DoesNotExist', `resource does not exist: ${describeKey(key)}`, {
          identifier: describeKey(key),
        });
      }
      return toKvPair(key, kv);
    },

    async list<K extends Kind>(options: ListOptions<K>): Promise<ListResult<K>> {
      session.assertOpen();
      const items: KVPair<K>[] = [];
      let revision: string | undefined;
      // Prefixes are disjoint, so reading them in sorted order yields key order overall.
      for (const prefix of listPrefixes(options).sort()) {
        revision = await listPrefix(session, { prefix, revision, options, items });
      }
      if (revision === undefined) {
        // A kind with no prefixes: still report the store revision for a following watch.
        const res = await session.retrying(() =>
          etcd.range({ key: Buffer.from('/calico/'), count_only: true }),
        );
        revision = res.header.revision;
      }
      return { items, revision };
    },

    async listMany(options: readonly ListOptions[]): Promise<ListResult[]> {
      session.assertOpen();
      const plans = options.map((o) => ({ o, prefixes: listPrefixes(o).sort() }));
      const ranges = plans.flatMap((p) => p.prefixes.map((prefix) => prefixRange(prefix)));
      if (ranges.length === 0 || ranges.length > MAX_RANGES_PER_TXN) {
        return Promise.all(options.map((o) => this.list(o)));
      }
      // One read-only transaction: every range at the same revision, one round trip.
      const res = await session.retrying(
        () =>
          etcd.txn({
            success: ranges.map((r) => ({ request_range: { key: r.start, range_end: r.end } })),
          }),
        { path: 'listMany' },
      );
      const revision = res.header.revision;
      let next = 0;
      return plans.map(({ o, prefixes }) => {
        const items: KVPair[] = [];
        for (let i = 0; i < prefixes.length; i++) {
          for (const kv of res.responses[next++]!.response_range!.kvs) {
            const key = pathToKey(kv.key.toString('utf8'));
            if (key && matchesListOptions(key, o)) items.push(toKvPair(key, kv));
          }
        }
        return { items, revision };
      });
    },
  };
}
