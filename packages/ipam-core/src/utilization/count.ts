/** An address count: a `number` while exact, a `bigint` above `Number.MAX_SAFE_INTEGER`. */
export type Count = number | bigint;

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** The {@link Count} for an exact bigint count. */
export function toCount(n: bigint): Count {
  return n <= MAX_SAFE ? Number(n) : n;
}

/** The exact bigint value of a {@link Count}. */
export function countToBigInt(c: Count): bigint {
  return typeof c === 'bigint' ? c : BigInt(c);
}
