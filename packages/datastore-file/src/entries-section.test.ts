import { crc32 } from 'node:zlib';
import { encodeValue } from '@netledger/ipam-core/adapter';
import { describe, expect, it } from 'vitest';
import { mutateSnapshot } from './mutate-snapshot.js';
import type { Mutation } from './mutate-snapshot.js';
import { parseStoreDocument, serializeStoreDocument } from './store-document.js';
import type { StoreSnapshot, StoredEntry } from './store-snapshot.js';
import { STORE_FORMAT, emptySnapshot } from './store-snapshot.js';

const record = (e: StoredEntry) => ({
  value: e.value,
  modRevision: e.modRevision,
  createRevision: e.createRevision,
  uid: e.uid,
});

/** The document as the format defines it, built the plain way, with nothing kept between calls. */
function reference(s: StoreSnapshot): Buffer {
  const body = JSON.stringify({
    format: STORE_FORMAT,
    storeId: s.storeId,
    revision: s.revision,
    compactedRevision: s.compactedRevision,
    entries: Object.fromEntries([...s.entries].map(([path, e]) => [path, record(e)])),
    history: s.history.map((r) => ({
      type: r.type,
      revision: r.revision,
      path: r.path,
      ...record(r.entry),
    })),
  }).slice(0, -1);
  const seal = crc32(body).toString(16).padStart(8, '0');
  return Buffer.from(`${body},"seal":"${seal}"}\n`);
}

/** A small deterministic generator (mulberry32), so a failure replays. */
function random(seed: number): (n: number) => number {
  let a = seed;
  return (n) => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

const handleKey = (id: string) => ({ kind: 'IPAMHandle', handleId: id }) as const;
const handleText = (id: string, n: number) =>
  encodeValue('IPAMHandle', { handleId: id, block: { '10.0.0.0/26': n }, deleted: false });

/** One random transaction: creates, updates and deletes of distinct handles. */
function randomWrites(s: StoreSnapshot, pick: (n: number) => number, serial: number): Mutation[] {
  const live = [...s.entries.values()];
  const touched = new Set<string>();
  const writes: Mutation[] = [];
  for (let k = 0, count = 1 + pick(4); k < count; k++) {
    const choice = live.length === 0 ? 0 : pick(3);
    const e = live[pick(live.length)];
    if (choice === 0 || !e) {
      const id = `h${serial}-${k}-é${pick(1000)}`;
      writes.push({ op: 'create', key: handleKey(id), value: handleText(id, k) });
      continue;
    }
    if (e.key.kind !== 'IPAMHandle' || touched.has(e.key.handleId)) continue;
    touched.add(e.key.handleId);
    writes.push(
      choice === 1
        ? {
            op: 'update',
            key: e.key,
            value: handleText(e.key.handleId, serial),
            revision: String(e.modRevision),
          }
        : { op: 'delete', key: e.key },
    );
  }
  return writes;
}

describe('serializeStoreDocument, copying unchanged entries from the last document', () => {
  it('writes what the format defines after any creates, updates and deletes, across two stores', () => {
    const pick = random(21);
    const stores = [emptySnapshot('store-a'), emptySnapshot('store-b')];
    let uid = 0;
    const context = { newUid: () => `u${uid++}`, historyLimit: 5 };
    for (let step = 0; step < 400; step++) {
      // Mostly one store, as a process writes, sometimes the other in between.
      const i = pick(5) === 0 ? 1 : 0;
      const writes = randomWrites(stores[i]!, pick, step);
      if (writes.length === 0) continue;
      stores[i] = mutateSnapshot(stores[i]!, writes, context).snapshot;
      const bytes = serializeStoreDocument(stores[i]);
      expect(bytes.equals(reference(stores[i])), `step ${step}`).toBe(true);
    }
    const back = parseStoreDocument(serializeStoreDocument(stores[0]!).toString(), {
      filePath: 'f',
    });
    expect(back).toEqual(stores[0]);
  });

  it('does not depend on what the caller does with the bytes it was given', () => {
    const context = { newUid: () => 'u', historyLimit: 5 };
    let s = emptySnapshot('store-c');
    for (const id of ['a', 'b', 'c']) {
      s = mutateSnapshot(s, [{ op: 'create', key: handleKey(id), value: handleText(id, 0) }], {
        ...context,
      }).snapshot;
    }
    serializeStoreDocument(s).fill(0x78);
    const next = mutateSnapshot(s, [{ op: 'delete', key: handleKey('b') }], context).snapshot;
    expect(serializeStoreDocument(next).equals(reference(next))).toBe(true);
    expect(serializeStoreDocument(s).equals(reference(s))).toBe(true);
  });
});
