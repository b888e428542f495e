/** A key range `[start, end)` as etcd takes it. */
export interface KeyRange {
  readonly start: Buffer;
  readonly end: Buffer;
}

/**
 * The range of every key that starts with `prefix`: `end` is the prefix with its last byte that
 * is not 0xff incremented (bytes after it dropped). A prefix of only 0xff bytes, or an empty one,
 * ends at `\0`, which etcd reads as "every key from `start` on".
 */
export function prefixRange(prefix: string | Buffer): KeyRange {
  const start = Buffer.from(prefix);
  for (let i = start.length - 1; i >= 0; i--) {
    if (start[i]! < 0xff) {
      const end = Buffer.from(start.subarray(0, i + 1));
      end[i] = start[i]! + 1;
      return { start, end };
    }
  }
  return { start, end: Buffer.from([0]) };
}

/** The smallest range covering every prefix (undefined for none); a watch filters what it delivers. */
export function coveringRange(prefixes: readonly string[]): KeyRange | undefined {
  const ranges = prefixes.map((p) => prefixRange(p));
  if (ranges.length === 0) return undefined;
  let { start, end } = ranges[0]!;
  for (const r of ranges) {
    if (Buffer.compare(r.start, start) < 0) start = r.start;
    if (Buffer.compare(r.end, end) > 0) end = r.end;
  }
  return { start, end };
}
