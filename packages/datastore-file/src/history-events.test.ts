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
    expect(event.kv).toEqual(toKvPair(stored));
    expect(event.kv.value).toBe(event.kv.value);
    expect({ ...event.kv }).toMatchObject({
      revision: '7',
      uid: 'u1',
      value: toKvPair(stored).value,
    });
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
