import fc from 'fast-check';
import { Address4, Address6 } from 'ip-address';
import { describe, expect, it } from 'vitest';
import { formatIp } from './format-ip.js';
import { parseIp } from './parse-ip.js';
import { anyIp } from './test-arbitraries.js';

const v6 = (text: string) => parseIp(text);

describe('formatIp', () => {
  it.each([
    ['unspecified', '0:0:0:0:0:0:0:0', '::'],
    ['loopback', '0:0:0:0:0:0:0:1', '::1'],
    ['trailing run', '1:0:0:0:0:0:0:0', '1::'],
    ['lower case', 'FD80:24E2:F998:72D6:0:0:0:0', 'fd80:24e2:f998:72d6::'],
    ['leading zeros dropped', '2001:0db8:0000:0000:0000:0000:0000:0001', '2001:db8::1'],
    ['longest run wins', '2001:0:0:1:0:0:0:1', '2001:0:0:1::1'],
    ['first of equal runs', '2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['no :: for a single zero group', '2001:db8:0:1:1:1:1:1', '2001:db8:0:1:1:1:1:1'],
    ['single zero group at the end', '1:2:3:4:5:6:7:0', '1:2:3:4:5:6:7:0'],
    ['no zeros', '1:2:3:4:5:6:7:8', '1:2:3:4:5:6:7:8'],
    [
      'all ones',
      'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
      'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
    ],
    ['IPv4-mapped in mixed notation', '0:0:0:0:0:ffff:a00:1', '::ffff:10.0.0.1'],
    ['IPv4-compatible stays hex', '::10.0.0.1', '::a00:1'],
  ])('%s: %s -> %s', (_name, input, expected) => {
    expect(formatIp(v6(input))).toBe(expected);
  });

  it.each([
    ['0.0.0.0', 0n],
    ['10.0.0.1', 0x0a000001n],
    ['255.255.255.255', 0xffffffffn],
  ])('formats IPv4 %s', (expected, value) => {
    expect(formatIp({ version: 4, value })).toBe(expected);
  });

  it('matches ip-address correctForm (RFC 5952) outside the IPv4-mapped range', () => {
    fc.assert(
      fc.property(anyIp, (ip) => {
        fc.pre(ip.version === 6 && ip.value >> 32n !== 0xffffn);
        expect(formatIp(ip)).toBe(Address6.fromBigInt(ip.value).correctForm());
      }),
    );
  });

  it('matches ip-address to4in6 on IPv4-mapped addresses', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 0xffffffffn }), (v4) => {
        const value = 0xffff00000000n | v4;
        expect(formatIp({ version: 6, value })).toBe(Address6.fromBigInt(value).to4in6());
      }),
    );
  });

  it('matches ip-address correctForm on IPv4', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 0xffffffffn }), (value) => {
        expect(formatIp({ version: 4, value })).toBe(Address4.fromBigInt(value).correctForm());
      }),
    );
  });

  it('uses only lower-case hex and at most one ::', () => {
    fc.assert(
      fc.property(anyIp, (ip) => {
        const text = formatIp(ip);
        expect(text).toBe(text.toLowerCase());
        expect(text.split('::').length).toBeLessThanOrEqual(2);
        expect(text).not.toMatch(/(^|:)0[0-9a-f]/);
      }),
    );
  });
});
