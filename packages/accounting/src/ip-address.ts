/** IP protocol version of an address or CIDR. */
export type IpVersion = 4 | 6;

/** An IP address as a version and an unsigned integer value (32 or 128 bits). */
export interface IpAddress {
  readonly version: IpVersion;
  readonly value: bigint;
}

/** Number of bits in an address of the given version. */
export function addressBits(version: IpVersion): number {
  return version === 4 ? 32 : 128;
}

/** Largest address value of the given version (all ones). */
export function maxAddressValue(version: IpVersion): bigint {
  return (1n << BigInt(addressBits(version))) - 1n;
}
