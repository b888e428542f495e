import { AccountingError } from './accounting-error.js';
import { formatCidr } from './format-cidr.js';
import { addressBits, maxAddressValue } from './ip-address.js';
import type { IpAddress, IpVersion } from './ip-address.js';

/** A CIDR: version, prefix length and base address. The base always has its host bits clear. */
export interface Cidr {
  readonly version: IpVersion;
  readonly base: bigint;
  readonly prefix: number;
}

function hostMask(version: IpVersion, prefix: number): bigint {
  return (1n << BigInt(addressBits(version) - prefix)) - 1n;
}

/** The CIDR of the given prefix length that contains `ip`. Throws `InvalidCidr` on a bad prefix. */
export function maskIp(ip: IpAddress, prefix: number): Cidr {
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > addressBits(ip.version)) {
    throw new AccountingError(
      'InvalidCidr',
      `prefix length ${prefix} is out of range for IPv${ip.version}`,
    );
  }
  const base = ip.value & (maxAddressValue(ip.version) ^ hostMask(ip.version, prefix));
  return { version: ip.version, base, prefix };
}

/** The single-address CIDR (/32 or /128) of `ip`. */
export function hostCidr(ip: IpAddress): Cidr {
  return { version: ip.version, base: ip.value, prefix: addressBits(ip.version) };
}

/** Number of addresses in the CIDR, exact for any size. */
export function cidrSize(c: Cidr): bigint {
  return 1n << BigInt(addressBits(c.version) - c.prefix);
}

/** The highest address in the CIDR (the broadcast address, for IPv4). */
export function lastAddress(c: Cidr): IpAddress {
  return { version: c.version, value: c.base | hostMask(c.version, c.prefix) };
}

/** Whether `ip` lies inside `c`; always false when the versions differ. */
export function cidrContainsIp(c: Cidr, ip: IpAddress): boolean {
  return (
    ip.version === c.version &&
    ip.value >> BigInt(addressBits(c.version) - c.prefix) ===
      c.base >> BigInt(addressBits(c.version) - c.prefix)
  );
}

/** Whether every address of `inner` lies inside `outer`; false when the versions differ. */
export function cidrContainsCidr(outer: Cidr, inner: Cidr): boolean {
  return (
    outer.version === inner.version &&
    outer.prefix <= inner.prefix &&
    cidrContainsIp(outer, { version: inner.version, value: inner.base })
  );
}

/** Whether the two CIDRs share at least one address; false when the versions differ. */
export function cidrsOverlap(a: Cidr, b: Cidr): boolean {
  return cidrContainsCidr(a, b) || cidrContainsCidr(b, a);
}

/** The address at offset `n` (the ordinal) inside `c`. Throws `OutOfRange` outside the CIDR. */
export function nthAddress(c: Cidr, n: bigint | number): IpAddress {
  if (typeof n === 'number' && !Number.isSafeInteger(n)) {
    throw new AccountingError('OutOfRange', `ordinal ${n} is not a safe integer`);
  }
  const offset = BigInt(n);
  if (offset < 0n || offset >= cidrSize(c)) {
    throw new AccountingError('OutOfRange', `ordinal ${offset} is outside ${formatCidr(c)}`);
  }
  return { version: c.version, value: c.base + offset };
}

/**
 * The offset (ordinal) of `ip` inside `c`. Throws `OutOfRange` when `ip` is outside the CIDR or
 * when the offset exceeds `Number.MAX_SAFE_INTEGER`.
 */
export function ordinalOf(c: Cidr, ip: IpAddress): number {
  if (!cidrContainsIp(c, ip)) {
    throw new AccountingError('OutOfRange', `address is outside ${formatCidr(c)}`);
  }
  const offset = ip.value - c.base;
  if (offset > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new AccountingError('OutOfRange', `ordinal ${offset} exceeds Number.MAX_SAFE_INTEGER`);
  }
  return Number(offset);
}
