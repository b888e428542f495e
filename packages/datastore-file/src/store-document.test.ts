import { crc32 } from 'node:zlib';
import { IpamError } from '@netledger/ipam-core';
import { encodeValue } from '@netledger/ipam-core/adapter';
import { BIG_SEQUENCE, BlockBuilder } from '@netledger/testkit';
import { describe, expect, it } from 'vitest';
import { mutateSnapshot } from './mutate-snapshot.js';
import { parseStoreDocument, serializeStoreDocument } from './store-document.js';
import type { StoreSnapshot } from './store-snapshot.js';
import { emptySnapshot } from './store-snapshot.js';

const FILE = '/var/lib/netledger/datastore.json';
const crc32Hex = (text: string): string => crc32(text).toString(16).padStart(8, '0');
const BLOCK_PATH = '/calico/ipam/v2/assignment/ipv4/block/10.0.0.0-30';
/** The file's text for a snapshot, as a reader sees it. */
const documentText = (s: StoreSnapshot): string => serializeStoreDocument(s).toString('utf8');

function sample(): StoreSnapshot {
  const block = new BlockBuilder('10.0.0.0/30').affine('node1').allocate([0], 'h1').build();
  const ctx = { newUid: () => 'u1', historyLimit: 10 };
  let s = mutateSnapshot(
    emptySnapshot('store-1'),
    [
      {
        op: 'create',
        key: { kind: 'IPAMBlock', cidr: '10.0.0.0/30' },
        value: encodeValue('IPAMBlock', block),
      },
    ],
    ctx,
  ).snapshot;
  s = mutateSnapshot(
    s,
    [
      {
        op: 'create',
        key: { kind: 'IPAMHandle', handleId: 'h1' },
        value: encodeValue('IPAMHandle', {
          handleId: 'h1',
          block: { '10.0.0.0/30': 1 },
          deleted: false,
        }),
      },
    ],
    ctx,
  ).snapshot;
  return mutateSnapshot(s, [{ op: 'delete', key: { kind: 'IPAMHandle', handleId: 'h1' } }], ctx)
    .snapshot;
}

/** The sample document as plain JSON, for breaking one field at a time. */
interface RawDoc {
  [field: string]: unknown;
  entries: Record<string, { value: string; modRevision: number }>;
}
const sampleDoc = (): RawDoc => JSON.parse(documentText(sample())) as RawDoc;

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
    const back = parseStoreDocument(documentText(s), { filePath: FILE });
    expect(back).toEqual(s);
    expect(back.entries.get(BLOCK_PATH)!.value).toContain(String(BIG_SEQUENCE));
  });

  it('reuses unchanged entries and history records of the previous snapshot', () => {
    const s = sample();
    const back = parseStoreDocument(documentText(s), { filePath: FILE, previous: s });
    expect(back.entries.get(BLOCK_PATH)).toBe(s.entries.get(BLOCK_PATH));
    expect(back.history[0]).toBe(s.history[0]);
  });

  it('shares the stored object with the history record of its newest change', () => {
    const s = sample();
    const back = parseStoreDocument(documentText(s), { filePath: FILE });
    const created = back.history.find((r) => r.path === BLOCK_PATH)!;
    expect(created.entry).toBe(back.entries.get(BLOCK_PATH));
  });

  describe('seal', () => {
    /** The document text with one value replaced and the seal recomputed as a writer would. */
    const resealedWith = (value: string): string => {
      const text = documentText(sample());
      const body = text.slice(0, text.lastIndexOf(',"seal":"'));
      const entry = JSON.stringify(sample().entries.get(BLOCK_PATH)!.value);
      const edited = body.replace(entry, JSON.stringify(value));
      expect(edited).not.toBe(body);
      return `${edited},"seal":"${crc32Hex(edited)}"}\n`;
    };

    it('ends every document it writes with the CRC-32 of the text before it', () => {
      const text = documentText(sample());
      const m = /,"seal":"([0-9a-f]{8})"\}\n$/.exec(text)!;
      expect(crc32Hex(text.slice(0, m.index))).toBe(m[1]);
    });

    it('seals the UTF-8 bytes it writes, which a reader checks against its text', () => {
      // A value no decoder accepts parses only if the seal is found intact (decoding is skipped).
      const value = '{"cidr": "ü€😀"}';
      const s = mutateSnapshot(
        emptySnapshot('store-2'),
        [{ op: 'create', key: { kind: 'IPAMBlock', cidr: '10.0.0.0/30' }, value }],
        { newUid: () => 'u1', historyLimit: 10 },
      ).snapshot;
      const bytes = serializeStoreDocument(s);
      const tail = Buffer.byteLength(',"seal":"00000000"}\n');
      const seal = crc32(bytes.subarray(0, bytes.length - tail))
        .toString(16)
        .padStart(8, '0');
      expect(bytes.subarray(bytes.length - tail).toString()).toBe(`,"seal":"${seal}"}\n`);
      const back = parseStoreDocument(bytes.toString('utf8'), { filePath: FILE });
      expect(back.entries.get(BLOCK_PATH)!.value).toBe(value);
    });

    it('writes each change of a later snapshot, not the bytes kept for an earlier one', () => {
      const s = sample();
      const first = documentText(s);
      const block = new BlockBuilder('10.0.0.0/30').affine('node1').allocate([0, 1], 'h2').build();
      const next = mutateSnapshot(
        s,
        [
          {
            op: 'update',
            key: { kind: 'IPAMBlock', cidr: '10.0.0.0/30' },
            value: encodeValue('IPAMBlock', block),
            revision: String(s.entries.get(BLOCK_PATH)!.modRevision),
          },
        ],
        { newUid: () => 'u2', historyLimit: 2 },
      ).snapshot;
      const back = parseStoreDocument(documentText(next), { filePath: FILE });
      expect(back).toEqual(next);
      expect(documentText(s)).toBe(first);
    });

    it('trusts the values of a sealed document without decoding them', () => {
      // Only this package seals, and only values that decode: a sealed bad value proves the skip.
      const back = parseStoreDocument(resealedWith('{"cidr": 7}'), { filePath: FILE });
      expect(back.entries.get(BLOCK_PATH)!.value).toBe('{"cidr": 7}');
    });

    it('checks every value of a document whose seal no longer matches', () => {
      const sealed = resealedWith('{"cidr": 7}');
      const tampered = sealed.replace(
        /"seal":"[0-9a-f]/,
        (m) => m.slice(0, -1) + (m.endsWith('0') ? '1' : '0'),
      );
      expect(corruptMessage(tampered)).toContain(BLOCK_PATH);
      const unsealed = sealed.replace(/,"seal":"[0-9a-f]{8}"/, '');
      expect(corruptMessage(unsealed)).toContain(BLOCK_PATH);
    });
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
