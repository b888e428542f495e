import { IpamError } from '@netledger/ipam-core';
import { readEntry } from './store-document.js';
import type { StoredEntry } from './store-snapshot.js';

// Salvage reads what it can of a store file that no longer parses as a store: a file cut short,
// overwritten in places, or holding a record that does not check. It keeps every entry record
// that checks on its own (its value decodes for its key) and names every one it cannot keep.

/** A key of the damaged file that salvage could not keep, and why. */
interface UnreadableKey {
  readonly path: string;
  readonly reason: string;
}

/** What {@link salvageStoreText} found. */
export interface SalvagedStore {
  /** The entry records that check, by path. */
  readonly entries: ReadonlyMap<string, StoredEntry>;
  /** Records whose path could be read but whose record could not be kept. */
  readonly unreadable: readonly UnreadableKey[];
  /** The store revision the file's header claims, when it can be read. */
  readonly revision?: number;
  /**
   * False when the entries section could not be read to its end (the file is cut short, or
   * garbage hides where records begin): keys past that point cannot be named.
   */
  readonly complete: boolean;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCount = (v: unknown): v is number =>
  typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/** Index just past the JSON string starting at `i` (a `"`), or -1 if it does not end. */
function endOfString(text: string, i: number): number {
  for (let j = i + 1; j < text.length; j++) {
    const c = text[j];
    if (c === '\\') j++;
    else if (c === '"') return j + 1;
  }
  return -1;
}

/** Index just past the object or array starting at `i`, skipping strings; -1 if it does not close. */
function endOfValue(text: string, i: number): number {
  let depth = 0;
  for (let j = i; j < text.length; j++) {
    const c = text[j];
    if (c === '"') {
      j = endOfString(text, j) - 1;
      if (j < 0) return -1;
    } else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return j + 1;
    }
  }
  return -1;
}

const skipSpace = (text: string, i: number): number => {
  while (i < text.length && /\s/.test(text[i]!)) i++;
  return i;
};

const reasonOf = (e: unknown, filePath: string): string => {
  const message = e instanceof Error ? e.message : String(e);
  const prefix = `${filePath}: `;
  const bare = message.startsWith(prefix) ? message.slice(prefix.length) : message;
  return bare.replace(/^corrupt datastore file: /, '');
};

/** Collects checked records; the first record for a path wins, as JSON.parse's last would not. */
function createCollector(filePath: string, maxRevision: number) {
  const entries = new Map<string, StoredEntry>();
  const unreadable: UnreadableKey[] = [];
  return {
    entries,
    unreadable,
    add(path: string, raw: unknown): void {
      try {
        const entry = readEntry(
          raw,
          { filePath, path },
          {
            maxRevision,
            reuse: undefined,
            sealed: false,
          },
        );
        if (!entries.has(path)) entries.set(path, entry);
      } catch (e) {
        if (!(e instanceof IpamError)) throw e;
        unreadable.push({ path, reason: reasonOf(e, filePath) });
      }
    },
    lose(path: string, reason: string): void {
      unreadable.push({ path, reason });
    },
  };
}

/** The header's revision: the first `"revision": N` before the entries (the header comes first). */
function headerRevision(text: string, end: number): number | undefined {
  const m = /"revision"\s*:\s*(\d{1,16})\b/.exec(text.slice(0, end));
  const n = m ? Number(m[1]) : NaN;
  return Number.isSafeInteger(n) ? n : undefined;
}

const ENTRIES = /"entries"\s*:\s*\{/;
/** Where the next record of the entries object may start: a bare `"/` after a comma. */
const NEXT_RECORD = /,\s*"\//g;

/** Reads the entries object record by record, from `start` (just past its `{`). */
function scanEntries(text: string, start: number, add: ReturnType<typeof createCollector>) {
  let i = start;
  const resync = (from: number): boolean => {
    NEXT_RECORD.lastIndex = from;
    const m = NEXT_RECORD.exec(text);
    if (!m) return false;
    i = m.index + m[0].length - 2;
    return true;
  };
  let complete = false;
  for (;;) {
    i = skipSpace(text, i);
    if (text[i] === '}') {
      complete = true;
      break;
    }
    if (text[i] === ',') i = skipSpace(text, i + 1);
    if (i >= text.length) break;
    const keyEnd = text[i] === '"' ? endOfString(text, i) : -1;
    let path: string | undefined;
    try {
      path = keyEnd > 0 ? (JSON.parse(text.slice(i, keyEnd)) as string) : undefined;
    } catch {
      path = undefined;
    }
    if (path === undefined) {
      if (!resync(i + 1)) break;
      continue;
    }
    const open = skipSpace(text, skipSpace(text, keyEnd) + 1);
    const end =
      text[skipSpace(text, keyEnd)] === ':' && text[open] === '{' ? endOfValue(text, open) : -1;
    if (end < 0) {
      add.lose(path, 'record cut off or overwritten');
      if (!resync(keyEnd)) break;
      continue;
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text.slice(open, end));
    } catch {
      add.lose(path, 'record is not valid JSON');
      if (!resync(keyEnd)) break;
      continue;
    }
    add.add(path, raw);
    i = end;
  }
  return complete;
}

/**
 * Every entry record of a store file's text that checks on its own (the same checks as opening,
 * every value decoded whatever the seal says), and the path and reason of every record it found
 * but cannot keep. Reads a document that parses as JSON through JSON.parse; otherwise scans the
 * text for the entries object and reads it record by record, skipping damage. Pure; never throws
 * for bad text.
 */
export function salvageStoreText(text: string, filePath: string): SalvagedStore {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    doc = undefined;
  }
  if (isObj(doc) && isObj(doc.entries)) {
    const revision = isCount(doc.revision) ? doc.revision : undefined;
    const add = createCollector(filePath, revision ?? Number.MAX_SAFE_INTEGER);
    for (const [path, raw] of Object.entries(doc.entries)) add.add(path, raw);
    return {
      entries: add.entries,
      unreadable: add.unreadable,
      complete: true,
      ...(revision !== undefined && { revision }),
    };
  }
  const m = ENTRIES.exec(text);
  if (!m) {
    const revision = headerRevision(text, text.length);
    return {
      entries: new Map(),
      unreadable: [],
      complete: false,
      ...(revision !== undefined && { revision }),
    };
  }
  const revision = headerRevision(text, m.index);
  const add = createCollector(filePath, revision ?? Number.MAX_SAFE_INTEGER);
  const complete = scanEntries(text, m.index + m[0].length, add);
  return {
    entries: add.entries,
    unreadable: add.unreadable,
    complete,
    ...(revision !== undefined && { revision }),
  };
}
