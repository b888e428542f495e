// Test-only helpers: brute-force universes (an IPv4 /24 and an IPv6 /120) and fast-check arbitraries.
import fc from 'fast-check';
import type { Cidr } from './cidr.js';
import type { IpAddress, IpVersion } from './ip-address.js';
import { parseIp } from './parse-ip.js';

/** A 256-address universe that brute-force oracles enumerate. */
export interface Universe {
  readonly version: IpVersion;
  readonly base: bigint;
  readonly bits: number;
}

const V4_UNIVERSE: Universe = { version: 4, base: parseIp('10.0.0.0').value, bits: 32 };
const V6_UNIVERSE: Universe = { version: 6, base: parseIp('fd00::').value, bits: 128 };
export const UNIVERSES = [V4_UNIVERSE, V6_UNIVERSE] as const;

/** The address at offset `i` (0-255) of the universe. */
export function ipAt(u: Universe, i: number): IpAddress {
  return { version: u.version, value: u.base + BigInt(i) };
}

/** Every offset (0-255) of the universe that `c` covers. */
export function offsetsOf(u: Universe, c: Cidr): number[] {
  const size = 2 ** (u.bits - c.prefix);
  const start = Number(c.base - u.base);
  return Array.from({ length: size }, (_, k) => start + k);
}

/** A CIDR inside the universe: prefix /24-/32 (or /120-/128), aligned base. */
export function cidrIn(u: Universe): fc.Arbitrary<Cidr> {
  return fc.integer({ min: 0, max: 8 }).chain((hostBits) =>
    fc.integer({ min: 0, max: 2 ** (8 - hostBits) - 1 }).map((slot) => ({
      version: u.version,
      base: u.base + BigInt(slot << hostBits),
      prefix: u.bits - hostBits,
    })),
  );
}

/** A short list of CIDRs inside the universe. */
export function cidrsIn(u: Universe, maxLength = 6): fc.Arbitrary<Cidr[]> {
  return fc.array(cidrIn(u), { maxLength });
}

/** The offsets covered by any of the CIDRs, as a set. */
export function coverOf(u: Universe, cidrs: readonly Cidr[]): Set<number> {
  return new Set(cidrs.flatMap((c) => offsetsOf(u, c)));
}

/** Offsets 0-255 as an array, for brute-force enumeration. */
export const ALL_OFFSETS: readonly number[] = Array.from({ length: 256 }, (_, i) => i);

/** A random address of either version, full width. */
export const anyIp: fc.Arbitrary<IpAddress> = fc.oneof(
  fc.bigInt({ min: 0n, max: 2n ** 32n - 1n }).map((value) => ({ version: 4 as const, value })),
  fc.bigInt({ min: 0n, max: 2n ** 128n - 1n }).map((value) => ({ version: 6 as const, value })),
  // Mostly-zero IPv6 values exercise `::` compression.
  fc
    .array(fc.constantFrom(0n, 0n, 0n, 1n, 0xffffn, 0xabcn), { minLength: 8, maxLength: 8 })
    .map((groups) => ({
      version: 6 as const,
      value: groups.reduce<bigint>((acc, g) => (acc << 16n) | g, 0n),
    })),
);
