import { parseCidr } from '@netledger/accounting';
import type { Cidr } from '@netledger/accounting';
import type { IPPool } from '../model/resources.js';
import { DEFAULT_BLOCK_SIZE } from './pool-defaults.js';

/** Pool CIDRs are parsed on every qualification; parse each text once. */
const CACHE_LIMIT = 4096;
const cache = new Map<string, Cidr | null>();

/**
 * A pool CIDR text parsed leniently (host bits masked off, as Calico's `ParseCIDR` does), or
 * `undefined` when it is malformed. Cached by text.
 */
export function tryParsePoolCidr(text: unknown): Cidr | undefined {
  if (typeof text !== 'string') return undefined;
  const cached = cache.get(text);
  if (cached !== undefined) return cached ?? undefined;
  let cidr: Cidr | null;
  try {
    cidr = parseCidr(text, { strict: false });
  } catch {
    cidr = null;
  }
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(text, cidr);
  return cidr ?? undefined;
}

/** The pool's CIDR, masked, or `undefined` for a pool whose CIDR does not parse. */
export function poolCidrOf(pool: IPPool): Cidr | undefined {
  return tryParsePoolCidr(pool.spec.cidr);
}

/** The pool's block size (prefix length), defaulted to 26 / 122 when unset. */
export function blockSizeOf(pool: IPPool, version: 4 | 6): number {
  return pool.spec.blockSize ? pool.spec.blockSize : DEFAULT_BLOCK_SIZE[version];
}
