/** The 32-bit value of a dotted IPv4 address; throws for anything else (the suite is IPv4 only). */
function ipv4ToNumber(ip: string): number {
  const parts = ip.split('.');
  if (parts.length !== 4) throw new Error(`not an IPv4 address: ${ip}`);
  return parts.reduce((n, p) => {
    const octet = Number(p);
    if (!/^\d{1,3}$/.test(p) || octet > 255) throw new Error(`not an IPv4 address: ${ip}`);
    return n * 256 + octet;
  }, 0);
}

/** The dotted form of a 32-bit value. */
export function numberToIpv4(n: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join('.');
}

/** A CIDR's first address (as a number) and its size. */
export function parseIpv4Cidr(cidr: string): { base: number; size: number } {
  const [ip, bits] = cidr.split('/');
  const prefix = Number(bits);
  if (ip === undefined || !Number.isInteger(prefix) || prefix < 0 || prefix > 32) {
    throw new Error(`not an IPv4 CIDR: ${cidr}`);
  }
  return { base: ipv4ToNumber(ip), size: 2 ** (32 - prefix) };
}
