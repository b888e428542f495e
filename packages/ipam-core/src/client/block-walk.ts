import type { Cidr } from '@netledger/accounting';
import { formatCidr, parseCidr } from '@netledger/accounting';

/** FNV-1 (not FNV-1a) 32-bit hash of a string's UTF-8 bytes, as Go's `hash/fnv.New32`. */
export function fnv1Hash32(text: string): number {
  let h = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    h = Math.imul(h, 0x01000193) >>> 0;
    h = (h ^ byte) >>> 0;
  }
  return h >>> 0;
}

/** A small seeded PRNG (mulberry32): deterministic per seed, uniform enough for a start offset. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

/** Options for {@link randomBlockWalk}. */
export interface BlockWalkOptions {
  readonly poolCidr: string;
  readonly blockSize: number;
  readonly host: string;
  /** Seed for full-length (/32, /128) blocks, where Calico uses the time instead of the host. */
  readonly timeSeed: number;
}

/**
 * Every block of a pool exactly once, starting at an offset derived from the FNV-1 hash of the
 * hostname and wrapping around: the same host always walks the same way, different hosts
 * diverge. (The start differs from Go's math/rand sequence; only the properties are kept.)
 */
export function* randomBlockWalk(options: BlockWalkOptions): Generator<string> {
  const { pool, numBlocks, step, start } = walkGeometry(options);
  for (let i = 0n; i < numBlocks; i++) {
    const index = (start + i) % numBlocks;
    const block: Cidr = {
      version: pool.version,
      base: pool.base + index * step,
      prefix: options.blockSize,
    };
    yield formatCidr(block);
  }
}

function walkGeometry(options: BlockWalkOptions) {
  const pool = parseCidr(options.poolCidr, { strict: false });
  const bits = pool.version === 4 ? 32 : 128;
  const numBlocks = 1n << BigInt(options.blockSize - pool.prefix);
  const step = 1n << BigInt(bits - options.blockSize);
  const seed = options.blockSize === bits ? options.timeSeed : fnv1Hash32(options.host);
  const next = mulberry32(seed);
  // 96 random bits, reduced modulo the block count: uniform enough for any pool size.
  const r = (BigInt(next()) << 64n) | (BigInt(next()) << 32n) | BigInt(next());
  return { pool, numBlocks, step, start: r % numBlocks };
}

/**
 * Orders existing blocks of a pool as {@link randomBlockWalk} would visit them, without walking
 * the pool (an IPv6 pool can hold 2^58 blocks). Blocks outside the pool are dropped.
 */
export function orderByBlockWalk(options: BlockWalkOptions, blocks: readonly string[]): string[] {
  const { pool, numBlocks, step, start } = walkGeometry(options);
  const ranked: { cidr: string; rank: bigint }[] = [];
  for (const cidr of blocks) {
    const c = parseCidr(cidr, { strict: false });
    if (c.version !== pool.version || c.prefix !== options.blockSize) continue;
    const offset = c.base - pool.base;
    if (offset < 0n || offset >= numBlocks * step) continue;
    ranked.push({ cidr, rank: (offset / step - start + numBlocks) % numBlocks });
  }
  return ranked.sort((a, b) => (a.rank < b.rank ? -1 : a.rank > b.rank ? 1 : 0)).map((r) => r.cidr);
}

/** The blocks of `cidr` in order, each `blockSize` long (Calico's sequential `blockGenerator`). */
export function* sequentialBlockWalk(cidr: string, blockSize: number): Generator<string> {
  const c = parseCidr(cidr, { strict: false });
  const bits = c.version === 4 ? 32 : 128;
  const n = c.prefix <= blockSize ? 1n << BigInt(blockSize - c.prefix) : 1n;
  const step = 1n << BigInt(bits - blockSize);
  for (let i = 0n; i < n; i++) {
    yield formatCidr({ version: c.version, base: c.base + i * step, prefix: blockSize });
  }
}
