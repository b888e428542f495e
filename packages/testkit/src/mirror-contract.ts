import type { Datastore, KVPair } from '@netledger/ipam-core';
import { createMirroredDatastore } from '@netledger/ipam-core/adapter';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { buildPool } from './builders.js';
import { describeDatastoreContract } from './datastore-contract.js';

/** A read mirror (or a stack of wrappers with one inside) in front of a store. */
export interface MirrorUnderTest {
  /** What callers use. */
  readonly datastore: Datastore;
  /** Whether reads of mirrored kinds are served from memory. */
  isSynced(): boolean;
}

/** What an adapter under test provides to {@link describeMirrorContract}. */
export interface MirrorContractTarget {
  /** A store with no objects in it (a fresh one, or one the harness wiped). */
  open(): Promise<Datastore>;
  /** A second client of the store `open` last returned, as another process would open it. */
  reopen(): Promise<Datastore>;
  /** Called after each of the suites (so more than once): removes what `open` made. */
  teardown?(): Promise<void>;
  /** `path`: lists come back in etcd key order; `name`: in Kubernetes name order. */
  readonly listOrder?: 'path' | 'name';
  /**
   * Puts the mirror under test in front of `inner`, telling `onFallback` of every re-sync
   * (default: `createMirroredDatastore` with its default kinds). Its lists must cover pools, Nodes
   * and node1's host affinities.
   */
  readonly mirror?: (inner: Datastore, onFallback: (error: unknown) => void) => MirrorUnderTest;
}

const defaultMirror = (inner: Datastore, onFallback: (error: unknown) => void): MirrorUnderTest => {
  const mirrored = createMirroredDatastore(inner, { onFallback });
  return { datastore: mirrored, isSynced: () => mirrored.isSynced() };
};
const names = (items: readonly KVPair[]): string[] =>
  items.map((kv) => ('name' in kv.key ? kv.key.name : 'cidr' in kv.key ? kv.key.cidr : ''));

/**
 * Runs the Datastore contract over a read mirror in front of the target's store, then checks what
 * the mirror adds: changes to pools, Nodes and affinities written by another client reach it
 * through its watch, with no re-sync (a re-sync would hide a broken watch, since reads then go to
 * the store and still come out right).
 */
export function describeMirrorContract(name: string, target: MirrorContractTarget): void {
  const mirror = target.mirror ?? defaultMirror;
  describeDatastoreContract(`${name} behind a mirror`, {
    ...(target.listOrder && { listOrder: target.listOrder }),
    ...(target.teardown && { teardown: target.teardown }),
    open: async () => mirror(await target.open(), () => undefined).datastore,
  });

  describe(`read mirror over ${name}`, () => {
    const opened: Datastore[] = [];
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((ds) => ds.close()));
    });
    afterAll(async () => {
      await target.teardown?.();
    });

    it("follows another client's pool, Node and affinity changes by its watch, with no re-sync", async () => {
      const fallbacks: unknown[] = [];
      const m = mirror(await target.open(), (e) => fallbacks.push(e));
      opened.push(m.datastore);
      const other = await target.reopen();
      opened.push(other);
      const pools = async (): Promise<string[]> =>
        names((await m.datastore.list({ kind: 'IPPool' })).items);
      expect(await pools()).toEqual([]); // the first sync
      expect(m.isSynced()).toBe(true);

      await other.create({
        key: { kind: 'IPPool', name: 'p1' },
        value: buildPool('p1', '10.1.0.0/16'),
      });
      const node = await other.create({
        key: { kind: 'Node', name: 'node1' },
        value: { metadata: { name: 'node1' }, spec: {}, status: {} },
      });
      const affinity = {
        kind: 'BlockAffinity',
        host: 'node1',
        cidr: '10.1.0.0/26',
        affinityType: 'host',
      } as const;
      await other.create({ key: affinity, value: { state: 'confirmed', deleted: false } });
      // The mirror's own write: its watch brings it back too.
      await m.datastore.create({
        key: { kind: 'IPPool', name: 'p2' },
        value: buildPool('p2', '10.2.0.0/16'),
      });
      await vi.waitFor(
        async () => {
          expect(await pools()).toEqual(['p1', 'p2']);
          expect((await m.datastore.get({ kind: 'Node', name: 'node1' })).revision).toBe(
            node.revision,
          );
          expect(
            names((await m.datastore.list({ kind: 'BlockAffinity', host: 'node1' })).items),
          ).toEqual(['10.1.0.0/26']);
        },
        { timeout: 10_000, interval: 20 },
      );

      const labelled = await other.update({
        ...node,
        value: { ...node.value, metadata: { name: 'node1', labels: { zone: 'a' } } },
      });
      await other.delete(affinity);
      await other.delete({ kind: 'IPPool', name: 'p1' });
      await vi.waitFor(
        async () => {
          expect(await pools()).toEqual(['p2']);
          const seen = await m.datastore.get({ kind: 'Node', name: 'node1' });
          expect(seen).toMatchObject({ revision: labelled.revision });
          expect(seen.value.metadata.labels).toEqual({ zone: 'a' });
          expect((await m.datastore.list({ kind: 'BlockAffinity', host: 'node1' })).items).toEqual(
            [],
          );
        },
        { timeout: 10_000, interval: 20 },
      );
      expect(fallbacks.map(String)).toEqual([]);
      expect(m.isSynced()).toBe(true);
    });
  });
}
