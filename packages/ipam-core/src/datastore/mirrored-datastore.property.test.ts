import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { IpamError, isIpamError } from '../errors.js';
import type { DatastoreKey, ListOptions } from '../model/keys.js';
import type { Datastore, KVPair, NewKVPair } from './datastore.js';
import { createMemoryDatastore } from './memory-datastore.js';
import { createMirroredDatastore } from './mirrored-datastore.js';
import { createControlledDatastore } from './test-controlled-datastore.js';

/**
 * Random writes through the mirror (this client) and straight to the store (another client),
 * with watch events held back, let through in bits, and watches broken. After each of this
 * client's writes it must read that write back while nobody has changed the key since; at the
 * end, once the watches have caught up, every read must equal the store's.
 */
type Key = DatastoreKey<'Node'> | DatastoreKey<'BlockAffinity'>;
const KEYS: readonly Key[] = [
  { kind: 'Node', name: 'n0' },
  { kind: 'Node', name: 'n1' },
  { kind: 'BlockAffinity', host: 'h0', cidr: '10.0.0.0/26', affinityType: 'host' },
  { kind: 'BlockAffinity', host: 'h0', cidr: 'fd00::/122', affinityType: 'host' },
  { kind: 'BlockAffinity', host: 'h1', cidr: '10.0.0.64/26', affinityType: 'host' },
  { kind: 'BlockAffinity', host: 'h0', cidr: '10.0.0.128/26', affinityType: 'virtual' },
];
const LISTS: readonly ListOptions[] = [
  { kind: 'Node' },
  { kind: 'BlockAffinity' },
  { kind: 'BlockAffinity', host: 'h0' },
  { kind: 'BlockAffinity', host: 'h0', ipVersion: 4 },
  { kind: 'BlockAffinity', affinityType: 'virtual' },
];

type Action = 'create' | 'update' | 'delete' | 'deleteAt' | 'apply';
type Step =
  | { t: 'write'; mine: boolean; action: Action; key: number }
  | { t: 'pause' }
  | { t: 'allow'; n: number }
  | { t: 'resume' }
  | { t: 'break' };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      t: fc.constant('write' as const),
      mine: fc.boolean(),
      action: fc.constantFrom<Action>('create', 'update', 'delete', 'deleteAt', 'apply'),
      key: fc.integer({ min: 0, max: KEYS.length - 1 }),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ t: 'pause' as const }) },
  {
    weight: 2,
    arbitrary: fc.record({ t: fc.constant('allow' as const), n: fc.integer({ min: 1, max: 3 }) }),
  },
  { weight: 1, arbitrary: fc.constant({ t: 'resume' as const }) },
  { weight: 1, arbitrary: fc.constant({ t: 'break' as const }) },
);

let version = 0;
function valueFor(key: Key): NewKVPair {
  version++;
  return key.kind === 'Node'
    ? { key, value: { metadata: { name: key.name, labels: { v: String(version) } }, spec: {} } }
    : { key, value: { state: version % 2 === 0 ? 'confirmed' : 'pending', deleted: false } };
}

const expected = (e: unknown): boolean =>
  isIpamError(e, 'AlreadyExists', 'DoesNotExist', 'UpdateConflict');

/** One write; returns what it wrote (undefined: a delete, or an expected failure). */
async function write(
  ds: Datastore,
  action: Action,
  key: Key,
): Promise<KVPair | 'deleted' | undefined> {
  try {
    switch (action) {
      case 'create':
        return await ds.create(valueFor(key));
      case 'apply':
        return await ds.apply(valueFor(key));
      case 'update': {
        const base = await ds.get(key);
        return await ds.update({ ...valueFor(key), revision: base.revision });
      }
      case 'deleteAt': {
        const base = await ds.get(key);
        await ds.delete(key, { revision: base.revision });
        return 'deleted';
      }
      case 'delete':
        await ds.delete(key);
        return undefined; // no read-your-writes promise: see createMirroredDatastore
    }
  } catch (e) {
    if (expected(e)) return undefined;
    throw e;
  }
}

const read = (ds: Datastore, key: Key) =>
  ds.get(key).catch((e: unknown) => {
    if (isIpamError(e, 'DoesNotExist')) return undefined;
    throw e;
  });

describe('mirrored datastore (property)', () => {
  it('reads its own writes and converges on the store', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.boolean(),
        fc.array(step, { minLength: 1, maxLength: 40, size: 'max' }),
        async (held, steps) => {
          const store = createMemoryDatastore();
          const inner = createControlledDatastore(store);
          const mirror = createMirroredDatastore(inner, { retryDelayMs: 1 });
          try {
            await mirror.list({ kind: 'Node' });
            if (held) inner.pause();
            for (const s of steps) {
              if (s.t === 'pause') inner.pause();
              else if (s.t === 'allow') inner.allow(s.n);
              else if (s.t === 'resume') inner.resume();
              else if (s.t === 'break')
                inner.breakWatches(new IpamError('Unavailable', 'injected'));
              else {
                const key = KEYS[s.key]!;
                const done = await write(s.mine ? mirror : store, s.action, key);
                if (!s.mine || done === undefined) continue;
                const truth = await read(store, key);
                if (done === 'deleted') {
                  if (truth === undefined) expect(await read(mirror, key)).toBeUndefined();
                } else if (truth?.revision === done.revision) {
                  expect(await read(mirror, key)).toEqual(truth);
                }
              }
            }
            inner.resume();
            await vi.waitFor(() => expect(mirror.isSynced()).toBe(true), { interval: 1 });
            // One marker per watched kind: once it shows, that kind's watch has caught up.
            const markers = [
              await store.create(valueFor({ kind: 'Node', name: 'zz-marker' })),
              await store.create(
                valueFor({
                  kind: 'BlockAffinity',
                  host: 'zz',
                  cidr: '10.9.0.0/26',
                  affinityType: 'host',
                }),
              ),
            ];
            for (const m of markers)
              await vi.waitFor(
                async () => expect((await read(mirror, m.key as Key))?.revision).toBe(m.revision),
                { interval: 1 },
              );
            for (const o of LISTS)
              expect((await mirror.list(o)).items).toEqual((await store.list(o)).items);
            for (const key of KEYS) expect(await read(mirror, key)).toEqual(await read(store, key));
          } finally {
            await mirror.close();
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
