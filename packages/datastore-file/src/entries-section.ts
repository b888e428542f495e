import type { StoredEntry } from './store-snapshot.js';

// The entries section of the store document (`"path":{...},"path":{...}`) changes by a few entries
// per write, while a long-lived writer (the node agent) rewrites hundreds of them each time. So
// the bytes of the section last written are kept, with where each entry's piece lies in them, and
// the next section copies each run of entries still in the same order in one go: a walk that
// compares object identities, and a handful of copies, instead of one lookup and one copy per
// entry. An entry is the same object from one snapshot to the next until it changes (a change
// makes a new one), so the same object under the same path means the same bytes.

/** The section as last written: its own copy of the bytes, and each entry's piece in them. */
interface Layout {
  readonly bytes: Buffer;
  readonly entries: readonly StoredEntry[];
  readonly paths: readonly string[];
  /** Start and end (exclusive) of each entry's piece in `bytes`; pieces are comma-separated. */
  readonly starts: readonly number[];
  readonly ends: readonly number[];
}

/** A stretch of bytes to copy. */
interface Span {
  readonly source: Uint8Array;
  readonly start: number;
  end: number;
}

/** How far ahead a walk looks for an entry after ones that were deleted. */
const LOOKAHEAD = 16;

let last: Layout | undefined;

/** The entries section of one document, planned: its length, and how to write it. */
export interface EntriesSection {
  /** Bytes it takes, commas included. */
  readonly length: number;
  /**
   * Writes it into `out` at `at` and keeps its layout for the next section planned (a copy of
   * the bytes: what the caller does with `out` afterwards does not matter).
   */
  writeTo(out: Buffer, at: number): void;
}

/** Where `entry` under `path` lies in `layout`, looking from index `from`: its index, or -1. */
function findInLayout(
  layout: Layout,
  from: number,
  wanted: { readonly path: string; readonly entry: StoredEntry },
): number {
  const stop = Math.min(layout.entries.length, from + LOOKAHEAD);
  for (let i = from; i < stop; i++) {
    if (layout.entries[i] === wanted.entry && layout.paths[i] === wanted.path) return i;
  }
  return -1;
}

/**
 * Plans the section for `entries`, in their order: runs of pieces from the section last written
 * where entries are unchanged, `encode(path, entry)` (the piece's bytes) for the others.
 */
export function planEntriesSection(
  entries: ReadonlyMap<string, StoredEntry>,
  encode: (path: string, entry: StoredEntry) => Uint8Array,
): EntriesSection {
  const prev = last;
  const spans: Span[] = [];
  const order: StoredEntry[] = [];
  const paths: string[] = [];
  const starts: number[] = [];
  const ends: number[] = [];
  let length = 0;
  let j = 0;
  for (const [path, entry] of entries) {
    if (order.length > 0) length += 1;
    let source: Uint8Array;
    let start: number;
    let end: number;
    const found = prev ? findInLayout(prev, j, { path, entry }) : -1;
    if (prev && found >= 0) {
      source = prev.bytes;
      start = prev.starts[found]!;
      end = prev.ends[found]!;
      j = found + 1;
    } else {
      source = encode(path, entry);
      start = 0;
      end = source.length;
      // Changed in place: its old piece is next in the previous order.
      if (prev && prev.paths[j] === path) j++;
    }
    const tail = spans.at(-1);
    // Adjacent pieces of the same source have a comma between them already: one copy for both.
    if (tail && tail.source === source && tail.end + 1 === start) tail.end = end;
    else spans.push({ source, start, end });
    order.push(entry);
    paths.push(path);
    starts.push(length);
    length += end - start;
    ends.push(length);
  }
  return {
    length,
    writeTo(out, at) {
      let pos = at;
      spans.forEach((span, i) => {
        if (i > 0) out[pos++] = 0x2c;
        out.set(span.source.subarray(span.start, span.end), pos);
        pos += span.end - span.start;
      });
      if (pos !== at + length) {
        throw new Error(`entries section: wrote ${pos - at} bytes, planned ${length}`);
      }
      last = {
        bytes: Buffer.from(out.subarray(at, at + length)),
        entries: order,
        paths,
        starts,
        ends,
      };
    },
  };
}
