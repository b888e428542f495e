import { IpamError, encodeValue } from '@netledger/ipam-core';
import { BIG_SEQUENCE, BlockBuilder } from '@netledger/testkit';
import { describe, expect, it } from 'vitest';
import { applyMutation } from './apply-mutation.js';
import { parseStoreDocument, serializeStoreDocument } from './store-document.js';
import type { StoreSnapshot } from './store-snapshot.js';
import { emptySnapshot } from './store-snapshot.js';

const FILE = '/var/lib/netledger/datastore.json';
const BLOCK_PATH = '/calico/ipam/v2/assignment/ipv4/block/10.0.0.0-30';

function sample(): StoreSnapshot {
  const block = new BlockBuilder('10.0.0.0/30').affine('node1').allocate([0], 'h1').build();
  const ctx = { newUid: 'u1', historyLimit: 10 };
  let s = applyMutation(
    emptySnapshot('store-1'),
    {
      op: 'create',
      key: { kind: 'IPAMBlock', cidr: '10.0.0.0/30' },
      value: encodeValue('IPAMBlock', block),
    },
    ctx,
  ).snapshot;
  s = applyMutation(
    s,
    {
      op: 'create',
      key: { kind: 'IPAMHandle', handleId: 'h1' },
      value: encodeValue('IPAMHandle', {
        handleId: 'h1',
        block: { '10.0.0.0/30': 1 },
        deleted: false,
      }),
    },
    ctx,
  ).snapshot;
  return applyMutation(s, { op: 'delete', key: { kind: 'IPAMHandle', handleId: 'h1' } }, ctx)
    .snapshot;
}

/** The sample document as plain JSON, for breaking one field at a time. */
interface RawDoc {
  [field: string]: unknown;
  entries: Record<string, { value: string; modRevision: number }>;
}
const sampleDoc = (): RawDoc => JSON.parse(serializeStoreDocument(sample())) as RawDoc;

function corruptMessage(text: string): string {
  try {
    parseStoreDocument(text, { filePath: FILE });
  } catch (e) {
    expect(e).toBeInstanceOf(IpamError);
    expect(e).toMatchObject({ code: 'CorruptValue' });
    return (e as IpamError).message;
  }
  throw new Error('parsed a corrupt document');
}

describe('store document', () => {
  it('round-trips a snapshot, uint64 sequence numbers included', () => {
    const s = sample();
    const back = parseStoreDocument(serializeStoreDocument(s), { filePath: FILE });
    expect(back).toEqual(s);
    expect(back.entries.get(BLOCK_PATH)!.value).toContain(String(BIG_SEQUENCE));
  });

  it('reuses unchanged entries and history records of the previous snapshot', () => {
    const s = sample();
    const back = parseStoreDocument(serializeStoreDocument(s), { filePath: FILE, previous: s });
    expect(back.entries.get(BLOCK_PATH)).toBe(s.entries.get(BLOCK_PATH));
    expect(back.history[0]).toBe(s.history[0]);
  });

  it.each<{ why: string; text: () => string; mentions: string[] }>([
    { why: 'not JSON', text: () => '{"format": "netledger-datas', mentions: ['not valid JSON'] },
    { why: 'an empty file', text: () => '', mentions: ['not valid JSON'] },
    { why: 'a JSON array', text: () => '[]', mentions: ['not a JSON object'] },
    {
      why: 'another format',
      text: () => JSON.stringify({ ...sampleDoc(), format: 'x/v9' }),
      mentions: ['format'],
    },
    {
      why: 'a negative revision',
      text: () => JSON.stringify({ ...sampleDoc(), revision: -1 }),
      mentions: ['revision'],
    },
    {
      why: 'a value that does not decode',
      text: () => {
        const d = sampleDoc();
        d.entries[BLOCK_PATH]!.value = '{"cidr": 7}';
        return JSON.stringify(d);
      },
      mentions: [BLOCK_PATH, 'cidr'],
    },
    {
      why: 'a path that is not a Calico key',
      text: () => {
        const d = sampleDoc();
        d.entries['/calico/nonsense'] = d.entries[BLOCK_PATH]!;
        return JSON.stringify(d);
      },
      mentions: ['/calico/nonsense'],
    },
    {
      why: 'a mod revision beyond the store revision',
      text: () => {
        const d = sampleDoc();
        d.entries[BLOCK_PATH]!.modRevision = 99;
        return JSON.stringify(d);
      },
      mentions: [BLOCK_PATH, 'modRevision'],
    },
    {
      why: 'history that does not add up to the revision',
      text: () => JSON.stringify({ ...sampleDoc(), history: [] }),
      mentions: ['history'],
    },
  ])('refuses $why, naming the file', ({ text, mentions }) => {
    const message = corruptMessage(text());
    expect(message.startsWith(`${FILE}: `)).toBe(true);
    for (const m of mentions) expect(message).toContain(m);
  });

  it('names the key as the error identifier for a bad value', () => {
    const d = sampleDoc();
    d.entries[BLOCK_PATH]!.value = 'nope';
    expect(() => parseStoreDocument(JSON.stringify(d), { filePath: FILE })).toThrow(
      expect.objectContaining({ code: 'CorruptValue', identifier: BLOCK_PATH }),
    );
  });
});
