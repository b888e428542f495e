import { describe, expect, it } from 'vitest';
import type { DatastoreKey } from '../model/keys.js';
import type { KVPair } from './datastore.js';
import { createMirrorState } from './mirror-state.js';

const node = (name: string): DatastoreKey<'Node'> => ({ kind: 'Node', name });
const nodeAt = (name: string, revision: number, zone = 'a'): KVPair<'Node'> => ({
  key: node(name),
  value: { metadata: { name, labels: { zone } }, spec: {} },
  revision: String(revision),
});
const affinity = (host: string, cidr: string, affinityType: 'host' | 'virtual' = 'host') =>
  ({ kind: 'BlockAffinity', host, cidr, affinityType }) as const;
const affinityAt = (
  host: string,
  cidr: string,
  revision: number,
  affinityType: 'host' | 'virtual' = 'host',
): KVPair<'BlockAffinity'> => ({
  key: affinity(host, cidr, affinityType),
  value: { state: 'confirmed', deleted: false },
  revision: String(revision),
});
const revisionOf = (kv: KVPair | undefined) => kv?.revision;
const nodes = (items: KVPair[]) => items as KVPair<'Node'>[];

describe('mirror state', () => {
  // etcd gives every key of a transaction one revision; the watch advances the watermark with the
  // first event of it, and the others must not be taken for late versions.
  it('takes every key written at the watermark, and refuses unknown versions below it', () => {
    const s = createMirrorState();
    s.reconcile('Node', [nodeAt('n0', 3)], 5n);
    expect(s.observePut(nodeAt('a', 8))).toBe(true);
    s.advance('Node', 8n);
    expect(s.observePut(nodeAt('b', 8))).toBe(true);
    expect(s.observePut(nodeAt('c', 7))).toBe(false);
    expect(s.observePut(nodeAt('b', 8, 'other'))).toBe(false);
    expect(s.list({ kind: 'Node' }).map((kv) => kv.key)).toEqual([
      node('a'),
      node('b'),
      node('n0'),
    ]);
  });

  it.each([
    ['a newer version replaces an older one', 5, 7, '7'],
    ['an older version is refused', 7, 5, '7'],
    ['the same version is refused (idempotent)', 7, 7, '7'],
    // Decimal strings compare as numbers, not text: "10" > "9".
    ['revisions compare as integers', 9, 10, '10'],
  ])('%s', (_, first, second, expected) => {
    const s = createMirrorState();
    s.observePut(nodeAt('n1', first));
    s.observePut(nodeAt('n1', second, 'b'));
    expect(revisionOf(s.get(node('n1')))).toBe(expected);
  });

  it('compares revisions past 2^53 exactly', () => {
    const s = createMirrorState();
    s.observePut({ ...nodeAt('n1', 0), revision: '9007199254740993' });
    expect(s.observePut({ ...nodeAt('n1', 0), revision: '9007199254740992' })).toBe(false);
    expect(s.observePut({ ...nodeAt('n1', 0), revision: '9007199254740994' })).toBe(true);
  });

  it('a tombstone refuses versions at or below it and takes a re-create above it', () => {
    const s = createMirrorState();
    s.observePut(nodeAt('n1', 5));
    expect(s.observeGone(node('n1'), 5n)).toBe(true);
    expect(s.get(node('n1'))).toBeUndefined();
    expect(s.observePut(nodeAt('n1', 5))).toBe(false);
    expect(s.observePut(nodeAt('n1', 3))).toBe(false);
    expect(s.tombstoneCount()).toBe(1);
    expect(s.observePut(nodeAt('n1', 8))).toBe(true);
    expect(revisionOf(s.get(node('n1')))).toBe('8');
    expect(s.tombstoneCount()).toBe(0);
  });

  it('a late delete of an older version does not remove a newer one', () => {
    const s = createMirrorState();
    s.observePut(nodeAt('n1', 9));
    expect(s.observeGone(node('n1'), 6n)).toBe(false);
    expect(revisionOf(s.get(node('n1')))).toBe('9');
  });

  it('reconcile takes the list, drops what it lacks, keeps newer knowledge', () => {
    const s = createMirrorState();
    s.observePut(nodeAt('gone', 2));
    s.observePut(nodeAt('stale', 3));
    s.observePut(nodeAt('written-after', 12)); // a write that landed after the list
    s.observeGone(node('deleted-after'), 11n);
    s.reconcile('Node', [nodeAt('stale', 6), nodeAt('new', 4), nodeAt('deleted-after', 7)], 10n);
    expect(nodes(s.list({ kind: 'Node' })).map((kv) => [kv.key.name, kv.revision])).toEqual([
      ['new', '4'],
      ['stale', '6'],
      ['written-after', '12'],
    ]);
    expect(s.watermark('Node')).toBe(10n);
    expect(s.watermark('IPPool')).toBeUndefined();
  });

  it('after a list, a late version at or below the watermark of a key it lacks is refused', () => {
    const s = createMirrorState();
    s.reconcile('Node', [], 10n);
    expect(s.observePut(nodeAt('n1', 9))).toBe(false);
    expect(s.observePut(nodeAt('n1', 11))).toBe(true);
    expect(s.observeGone(node('n2'), 10n)).toBe(false);
    expect(s.tombstoneCount()).toBe(0);
  });

  it('advancing the watermark drops the tombstones it covers, of that kind only', () => {
    const s = createMirrorState();
    s.reconcile('Node', [], 1n);
    s.reconcile('BlockAffinity', [], 1n);
    s.observeGone(node('n1'), 5n);
    s.observeGone(node('n2'), 9n);
    s.observeGone(affinity('h', '10.0.0.0/26'), 4n);
    s.advance('Node', 6n);
    expect(s.tombstoneCount()).toBe(2);
    expect(s.knownRevision(node('n1'))).toBeUndefined();
    expect(s.knownRevision(node('n2'))).toBe(9n);
    // Dropped, yet still refused: the watermark covers it.
    expect(s.observePut(nodeAt('n1', 5))).toBe(false);
    s.advance('Node', 3n); // never goes back
    expect(s.watermark('Node')).toBe(6n);
  });

  it('lists in key-path order with the store filters (host, type, version)', () => {
    const s = createMirrorState();
    for (const kv of [
      affinityAt('node10', '10.0.0.64/26', 1),
      affinityAt('node1', 'fd00::/122', 2),
      affinityAt('node1', '10.0.0.128/26', 3),
      affinityAt('node1', '10.0.0.0/26', 4),
      affinityAt('lb', '10.0.1.0/26', 5, 'virtual'),
    ])
      s.observePut(kv);
    s.observePut({ key: { kind: 'IPAMHost', host: 'node1' }, value: {}, revision: '6' });
    const cidrs = (o: Parameters<typeof s.list>[0]) =>
      (s.list(o) as KVPair<'BlockAffinity'>[]).map((kv) => kv.key.cidr);
    expect(cidrs({ kind: 'BlockAffinity', host: 'node1' })).toEqual([
      '10.0.0.0/26',
      '10.0.0.128/26',
      'fd00::/122',
    ]);
    expect(cidrs({ kind: 'BlockAffinity', host: 'node1', ipVersion: 6 })).toEqual(['fd00::/122']);
    expect(cidrs({ kind: 'BlockAffinity', affinityType: 'virtual' })).toEqual(['10.0.1.0/26']);
    expect(cidrs({ kind: 'BlockAffinity' })).toHaveLength(5);
    expect(s.list({ kind: 'IPAMHost' })).toHaveLength(1);
  });

  it('freezes what it keeps', () => {
    const s = createMirrorState();
    const kv = nodeAt('n1', 1);
    s.observePut(kv);
    expect(Object.isFrozen((s.get(node('n1')) as KVPair<'Node'>).value.metadata.labels)).toBe(true);
  });

  it('refuses a revision that is not a decimal integer', () => {
    const s = createMirrorState();
    expect(() => s.observePut({ ...nodeAt('n1', 1), revision: 'abc' })).toThrow(
      expect.objectContaining({ code: 'CorruptValue' }),
    );
  });
});
