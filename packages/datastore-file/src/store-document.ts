import { crc32 } from 'node:zlib';
import { IpamError } from '@netledger/ipam-core';
import { decodeValue, keyToPath, pathToKey } from '@netledger/ipam-core/adapter';
import type { HistoryRecord, StoreSnapshot, StoredEntry } from './store-snapshot.js';
import { STORE_FORMAT } from './store-snapshot.js';
import { planEntriesSection } from './entries-section.js';

// The file is one JSON document; each value is kept as the Calico JSON text `encodeValue` gave,
// so the outer document needs only the built-in JSON parser and uint64s inside values stay exact.
//
// Its last field is a seal: the CRC-32 of the text before it (of its UTF-8 bytes, as in the
// file). Only this package writes a seal, and only over values that decode (its own encodings, or
// text it read from a checked or sealed file). A reader that finds the seal intact skips decoding
// every value, so opening the store costs one JSON.parse and a checksum instead of one decode per
// object, and values are decoded when read. A file whose seal no longer matches (a byte changed on
// disk, or an edit by hand) is refused even when every value still decodes: a flipped digit in a
// block's allocations decodes, and would hand an address out twice. A file without a seal (written
// before the seal existed, or edited by hand with its seal removed) is checked in full. (A
// checksum against accidents, not a signature.)

const SEAL = /,"seal":"([0-9a-f]{8})"\}\n?$/;

const sealOf = (body: string | Uint8Array): string => crc32(body).toString(16).padStart(8, '0');

/** `intact`: the seal matches the text before it; `broken`: a seal that does not; `absent`: none. */
type SealState = 'intact' | 'broken' | 'absent';

function sealState(text: string, doc: Record<string, unknown>): SealState {
  if (!('seal' in doc)) return 'absent';
  const m = SEAL.exec(text);
  return m !== null && sealOf(text.slice(0, m.index)) === m[1] ? 'intact' : 'broken';
}

/** Options for {@link parseStoreDocument}. */
export interface ParseStoreOptions {
  /** The file the text came from, named in every error. */
  readonly filePath: string;
  /**
   * The snapshot read before, if any: entries and history records identical to its ones are
   * reused as they are instead of being decoded again, so re-reading after one write costs one
   * decode, not one per object.
   */
  readonly previous?: StoreSnapshot;
  /**
   * Decode every value even when the seal is intact (default false): for `repair`, which must
   * not take a file's word for it before making it the store. The seal is checked either way.
   */
  readonly checkValues?: boolean;
}

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCount = (v: unknown): v is number =>
  typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const HISTORY_TYPES: readonly string[] = ['added', 'modified', 'deleted'];

function corrupt(filePath: string, what: string, identifier?: string): IpamError {
  return new IpamError('CorruptValue', `${filePath}: corrupt datastore file: ${what}`, {
    identifier: identifier ?? filePath,
  });
}

function sameEntry(a: StoredEntry, b: Obj): boolean {
  return (
    a.value === b.value &&
    a.modRevision === b.modRevision &&
    a.createRevision === b.createRevision &&
    a.uid === b.uid
  );
}

/**
 * Checks one `{ value, modRevision, createRevision, uid }` record at `path` and, unless `sealed`,
 * decodes its value; throws `CorruptValue` naming the file and the path.
 */
export function readEntry(
  raw: unknown,
  at: { filePath: string; path: string },
  limits: { maxRevision: number; reuse: StoredEntry | undefined; sealed: boolean },
): StoredEntry {
  const { filePath, path } = at;
  const fail = (what: string): never => {
    throw corrupt(filePath, `${path}: ${what}`, path);
  };
  if (!isObj(raw)) return fail('record is not an object');
  if (limits.reuse && sameEntry(limits.reuse, raw)) return limits.reuse;
  const { value, modRevision, createRevision, uid } = raw;
  if (typeof value !== 'string') return fail('value is not a string');
  if (!isCount(modRevision) || modRevision < 1 || modRevision > limits.maxRevision) {
    return fail(`modRevision ${String(modRevision)} is not in 1..${limits.maxRevision}`);
  }
  if (!isCount(createRevision) || createRevision < 1 || createRevision > modRevision) {
    return fail(`createRevision ${String(createRevision)} is not in 1..${modRevision}`);
  }
  if (typeof uid !== 'string' || uid === '') return fail('uid is not a non-empty string');
  const key = pathToKey(path);
  if (!key || keyToPath(key) !== path) return fail('not a Calico datastore path');
  if (limits.sealed) return { key, value, modRevision, createRevision, uid };
  try {
    decodeValue(key, value);
  } catch (e) {
    if (e instanceof IpamError) {
      throw new IpamError('CorruptValue', `${filePath}: ${e.message}`, {
        identifier: e.identifier ?? path,
        cause: e,
      });
    }
    throw e;
  }
  return { key, value, modRevision, createRevision, uid };
}

function readHistory(
  filePath: string,
  raw: unknown,
  header: {
    revision: number;
    compactedRevision: number;
    previous: StoreSnapshot | undefined;
    entries: ReadonlyMap<string, StoredEntry>;
    sealed: boolean;
  },
): HistoryRecord[] {
  if (!Array.isArray(raw)) throw corrupt(filePath, 'history is not an array');
  const expected = header.revision - header.compactedRevision;
  if (raw.length !== expected) {
    throw corrupt(filePath, `history holds ${raw.length} changes, expected ${expected}`);
  }
  const old = new Map<number, HistoryRecord>();
  for (const r of header.previous?.history ?? []) old.set(r.revision, r);
  return raw.map((item: unknown, i): HistoryRecord => {
    const revision = header.compactedRevision + i + 1;
    if (!isObj(item)) throw corrupt(filePath, `history[${i}] is not an object`);
    const { type, path } = item;
    if (item.revision !== revision) {
      throw corrupt(
        filePath,
        `history[${i}] has revision ${String(item.revision)}, expected ${revision}`,
      );
    }
    if (typeof type !== 'string' || !HISTORY_TYPES.includes(type)) {
      throw corrupt(filePath, `history[${i}] has unknown type ${JSON.stringify(type)}`);
    }
    if (typeof path !== 'string') throw corrupt(filePath, `history[${i}].path is not a string`);
    const before = old.get(revision);
    // The newest change of a live object is that object as stored: checked once, shared.
    const reuse =
      before && before.type === type && before.path === path
        ? before.entry
        : header.entries.get(path);
    const entry = readEntry(
      item,
      { filePath, path },
      {
        maxRevision: revision,
        reuse,
        sealed: header.sealed,
      },
    );
    if (type !== 'deleted' && entry.modRevision !== revision) {
      throw corrupt(
        filePath,
        `history[${i}] (${path}) has modRevision ${entry.modRevision}, expected ${revision}`,
        path,
      );
    }
    if (before && before.entry === entry && before.type === type) return before;
    return { type: type as HistoryRecord['type'], revision, path, entry };
  });
}

/**
 * Parses and checks a store file: the document's shape, revision bookkeeping, every path (a
 * Calico etcd path), its seal when it has one (a seal that does not match is refused), and, unless
 * the seal is intact, every value (it must decode for its kind). Throws `IpamError('CorruptValue')`
 * whose message starts with the file path and names the key.
 */
export function parseStoreDocument(text: string, options: ParseStoreOptions): StoreSnapshot {
  const { filePath, previous } = options;
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw corrupt(filePath, `not valid JSON (${(e as Error).message})`);
  }
  if (!isObj(doc)) throw corrupt(filePath, 'the document is not a JSON object');
  if (doc.format !== STORE_FORMAT) {
    throw corrupt(filePath, `format is ${JSON.stringify(doc.format)}, expected "${STORE_FORMAT}"`);
  }
  const { storeId, revision, compactedRevision } = doc;
  if (typeof storeId !== 'string' || storeId === '') throw corrupt(filePath, 'storeId is missing');
  if (!isCount(revision)) throw corrupt(filePath, 'revision is not a non-negative integer');
  if (!isCount(compactedRevision) || compactedRevision > revision) {
    throw corrupt(filePath, `compactedRevision is not an integer in 0..${revision}`);
  }
  if (!isObj(doc.entries)) throw corrupt(filePath, 'entries is not an object');
  const sameStore = previous?.storeId === storeId ? previous : undefined;
  const seal = sealState(text, doc);
  const sealed = options.checkValues !== true && seal === 'intact';
  const entries = new Map<string, StoredEntry>();
  for (const [path, raw] of Object.entries(doc.entries)) {
    const reuse = sameStore?.entries.get(path);
    entries.set(path, readEntry(raw, { filePath, path }, { maxRevision: revision, reuse, sealed }));
  }
  const history = readHistory(filePath, doc.history, {
    revision,
    compactedRevision,
    previous: sameStore,
    entries,
    sealed,
  });
  // Checked last, so a file with a specific fault is refused naming it (the key, the revision).
  if (seal === 'broken') {
    throw corrupt(
      filePath,
      'its seal does not match its contents (damaged on disk, or edited by hand), although every value decodes',
    );
  }
  return { storeId, revision, compactedRevision, entries, history };
}

const entryRecord = (e: StoredEntry) => ({
  value: e.value,
  modRevision: e.modRevision,
  createRevision: e.createRevision,
  uid: e.uid,
});

// Entries and history records are immutable and shared between snapshots, so each one's JSON is
// produced, and encoded as UTF-8, once and reused by every later write: a write escapes and encodes
// only what it changed, copies the rest (see entries-section.ts), and seals the bytes it writes (a
// seal over the text would encode the whole document once more, as would writing the text).
const entryBytes = new WeakMap<StoredEntry, { readonly path: string; readonly bytes: Buffer }>();
const historyBytes = new WeakMap<HistoryRecord, Buffer>();

/** `"<path>":{...}` as bytes; keyed by entry, checked against the path it is stored under. */
function entryPiece(path: string, e: StoredEntry): Buffer {
  const cached = entryBytes.get(e);
  if (cached?.path === path) return cached.bytes;
  const bytes = Buffer.from(`${JSON.stringify(path)}:${JSON.stringify(entryRecord(e))}`);
  entryBytes.set(e, { path, bytes });
  return bytes;
}

function historyPiece(r: HistoryRecord): Buffer {
  let bytes = historyBytes.get(r);
  if (bytes === undefined) {
    const record = { type: r.type, revision: r.revision, path: r.path, ...entryRecord(r.entry) };
    bytes = Buffer.from(JSON.stringify(record));
    historyBytes.set(r, bytes);
  }
  return bytes;
}

/** `,"seal":"xxxxxxxx"}\n` */
const SEAL_TAIL_LENGTH = 20;

/**
 * The file's bytes for a snapshot: the document as UTF-8 JSON, sealed, ending in a newline;
 * {@link parseStoreDocument} reads it back (as text).
 */
export function serializeStoreDocument(snapshot: StoreSnapshot): Buffer {
  const entries = planEntriesSection(snapshot.entries, entryPiece);
  const history = snapshot.history.map(historyPiece);
  const header = JSON.stringify({
    format: STORE_FORMAT,
    storeId: snapshot.storeId,
    revision: snapshot.revision,
    compactedRevision: snapshot.compactedRevision,
  });
  const open = Buffer.from(`${header.slice(0, -1)},"entries":{`);
  const middle = '},"history":[';
  let bodyLength = open.length + entries.length + middle.length + 1;
  for (const piece of history) bodyLength += piece.length + 1;
  if (history.length > 0) bodyLength -= 1; // one comma fewer than records
  const out = Buffer.allocUnsafeSlow(bodyLength + SEAL_TAIL_LENGTH);
  out.set(open, 0);
  let at = open.length;
  entries.writeTo(out, at);
  at += entries.length;
  at += out.write(middle, at, 'latin1');
  history.forEach((piece, i) => {
    if (i > 0) out[at++] = 0x2c;
    out.set(piece, at);
    at += piece.length;
  });
  at += out.write(']', at, 'latin1');
  if (at !== bodyLength) {
    throw new Error(`store document: wrote ${at} bytes, expected ${bodyLength}`);
  }
  const tail = `,"seal":"${sealOf(out.subarray(0, bodyLength))}"}\n`;
  out.write(tail, bodyLength, 'latin1');
  return out;
}
