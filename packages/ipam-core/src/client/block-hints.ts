import type { KVPair } from '../datastore/datastore.js';

/** How many blocks a client remembers by default: far more than one host's affine blocks. */
const DEFAULT_BLOCK_HINT_LIMIT = 1_024;

/**
 * The last version of each block this client wrote successfully, by block CIDR: a possible base
 * for the next compare-and-swap on it, saving the read. Only ever a CAS base: a stale hint makes
 * the write fail `UpdateConflict`, never a wrong result, and read-only operations never use it.
 */
export interface BlockHints {
  get(cidr: string): KVPair<'IPAMBlock'> | undefined;
  /** Remembers a block as written; the least recently remembered block goes past the limit. */
  remember(kv: KVPair<'IPAMBlock'>): void;
  forget(cidr: string): void;
  readonly size: number;
}

/** Creates an empty {@link BlockHints} holding at most `limit` blocks (0: remembers nothing). */
export function createBlockHints(limit = DEFAULT_BLOCK_HINT_LIMIT): BlockHints {
  const hints = new Map<string, KVPair<'IPAMBlock'>>();
  return {
    get: (cidr) => hints.get(cidr),
    remember(kv) {
      const cidr = kv.key.cidr;
      hints.delete(cidr); // re-inserted last: Map order is the eviction order
      if (limit <= 0) return;
      hints.set(cidr, kv);
      if (hints.size > limit) hints.delete(hints.keys().next().value!);
    },
    forget(cidr) {
      hints.delete(cidr);
    },
    get size() {
      return hints.size;
    },
  };
}
