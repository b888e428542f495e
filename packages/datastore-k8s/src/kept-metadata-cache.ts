// The kept metadata (see kept-metadata.ts) of the IPAM objects a datastore has read lately, by object
// and resourceVersion: an update at a revision this client read, the usual case (a compare-and-swap
// writes what it just read), needs no read of its own to keep the stored object's metadata.
import type { JsonObject } from './ipam-crd-codec.js';

/** Objects remembered at once; past that the oldest are forgotten (and read again if updated). */
const DEFAULT_LIMIT = 10_000;

/** See the file comment. */
export interface KeptMetadataCache {
  /** Remembers what `object` (e.g. `ipamblocks/10-0-0-0-26`) keeps at `revision`. */
  remember(object: string, revision: string, kept: JsonObject): void;
  /** What `object` keeps at exactly `revision`; undefined if it was last seen at another or never. */
  at(object: string, revision: string): JsonObject | undefined;
}

/** An empty cache of at most `limit` objects (default 10,000). */
export function createKeptMetadataCache(limit = DEFAULT_LIMIT): KeptMetadataCache {
  const entries = new Map<string, { readonly revision: string; readonly kept: JsonObject }>();
  return {
    remember(object, revision, kept) {
      entries.delete(object); // re-inserted last: the map's order is the order last seen
      entries.set(object, { revision, kept });
      if (entries.size > limit) entries.delete(entries.keys().next().value!);
    },
    at(object, revision) {
      const entry = entries.get(object);
      return entry?.revision === revision ? entry.kept : undefined;
    },
  };
}
