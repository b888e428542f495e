import { describe, expect, it } from 'vitest';
import type { DatastoreKey } from '@netledger/ipam-core';
import { toKvPair, toWatchEvent } from './history-events.js';
import type { StoredEntry } from './store-snapshot.js';

const key: DatastoreKey = { kind: 'IPAMHandle', handleId: 'net.c1' };
const entry = (value: string): StoredEntry => ({
  key,
  value,
  modRevision: 7,
  createRevision: 7,
  uid: 'u1',
});

describe('toWatchEvent', () => {
  it('decodes the value when it is first read, to what toKvPair gives, and keeps it', () => {
    const stored = entry('{"handleID":"net.c1","block":{"10.0.0.0/26":1},"deleted":false}');
    const event = toWatchEvent({ type: 'added', revision: 7, path: 'p', entry: stored });
    if (event.type !== 'added') throw new Error('expected an added event');
    const first = event.kv.value;
    expect(first).toEqual(toKvPair(stored).value);
    const second = event.kv.value;
    expect(second).toBe(first); // one decode, kept: not a fresh copy per read
    expect(event.kv).toEqual(toKvPair(stored));
    expect({ ...event.kv }).toMatchObject({ revision: '7', uid: 'u1', value: first });
  });

  it('can be frozen before its value is read, as the read mirror freezes what it keeps', () => {
    const stored = entry('{"handleID":"net.c1","block":{"10.0.0.0/26":1},"deleted":false}');
    const event = toWatchEvent({ type: 'added', revision: 7, path: 'p', entry: stored });
    if (event.type !== 'added') throw new Error('expected an added event');
    // mirror-state's deepFreeze: the pair first, then each of its values, read through the pair.
    Object.freeze(event.kv);
    const values = Object.values(event.kv);
    for (const v of values) if (typeof v === 'object' && v !== null) Object.freeze(v);
    expect(Object.isFrozen(event.kv)).toBe(true);
    expect(event.kv.value).toEqual(toKvPair(stored).value);
    expect(event.kv.value).toBe(values[values.length - 1]);
    expect(Object.isFrozen(event.kv.value)).toBe(true);
    const deleted = toWatchEvent({ type: 'deleted', revision: 8, path: 'p', entry: stored });
    if (deleted.type !== 'deleted') throw new Error('expected a deleted event');
    Object.freeze(deleted.previous);
    expect(deleted.previous?.value).toEqual(toKvPair(stored).value);
  });

  it('does not decode a value nobody reads', () => {
    const event = toWatchEvent({
      type: 'deleted',
      revision: 8,
      path: 'p',
      entry: entry('{not json'),
    });
    expect(event).toMatchObject({ type: 'deleted', key, revision: '8' });
    if (event.type !== 'deleted') throw new Error('expected a deleted event');
    expect(() => event.previous?.value).toThrow();
  });
});
