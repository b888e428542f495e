import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatAddress, formatSubnet } from './address.js';
import { parseAddress, parseAddressWithPrefix, parseSubnet } from './parse-address.js';

const why = (r: { ok: boolean; why?: string }) => (r.ok ? 'ok' : r.why);

describe('parseAddress', () => {
  it.each([
    ['10.0.5.256', 4, 'octet 256 is out of range (0-255)'],
    ['10.0.5', 4, '4 dot-separated octets, this has 3'],
    ['10.0.05.1', 4, 'octet "05" has a leading zero'],
    ['10.0.x.1', 4, 'octet "x" is not a decimal number'],
    ['10..5.1', 4, 'an octet is empty'],
    ['fd00::1', 4, 'is an IPv6 address, not IPv4'],
    ['10.0.5.1', 6, 'is an IPv4 address, not IPv6'],
    ['fd00::1::2', 6, '"::" may appear only once'],
    ['fd00:12345::1', 6, 'group "12345" has more than 4 hex digits'],
    ['fd00:g::1', 6, 'group "g" is not hexadecimal'],
    ['fd00:1:2:3', 6, 'it has 4 groups; without "::" an IPv6 address has 8'],
    ['fe80::1%eth0', 6, 'a zone index'],
    ['[fd00::1]', 6, 'brackets are not allowed'],
    ['10.0.5.1/24', 4, 'has a /prefix; an address is expected here'],
    ['', 6, 'empty address'],
  ] as const)('says what is wrong with %j as IPv%d', (text, family, reason) => {
    expect(why(parseAddress(text, family))).toContain(reason);
  });

  it('reads every IPv4 and IPv6 address back from its canonical text', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.bigInt({ min: 0n, max: (1n << 32n) - 1n }).map((v) => [4, v] as const),
          fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }).map((v) => [6, v] as const),
        ),
        ([family, value]) => {
          expect(parseAddress(formatAddress(family, value), family)).toEqual({ ok: true, value });
        },
      ),
    );
  });

  it('never throws, and always gives a reason for what it refuses', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 45 }),
        fc.constantFrom(4 as const, 6 as const),
        (text, family) => {
          const r = parseAddress(text, family);
          if (!r.ok) expect(r.why.length).toBeGreaterThan(10);
        },
      ),
    );
  });
});

describe('parseSubnet', () => {
  it.each([
    ['10.0.5.0/33', 4, 'prefix /33 of "10.0.5.0/33" is longer than the 32 bits of an IPv4 address'],
    ['10.0.5.0/abc', 4, 'prefix "/abc" of "10.0.5.0/abc" is not a decimal number'],
    ['10.0.5.0/024', 4, 'has a leading zero'],
    ['10.0.5.0/', 4, 'empty prefix'],
    ['10.0.5.0', 4, 'has no /prefix (an IPv4 CIDR such as 10.0.5.0/24)'],
    ['fd00::', 4, 'is an IPv6 address, not an IPv4 CIDR'],
    ['fd00::/64', 4, 'is an IPv6 CIDR, not IPv4'],
    ['10.0.256.0/24', 4, 'octet 256 is out of range (0-255)'],
    ['10.0.5.7/24', 4, 'has host bits set (its network is 10.0.5.0/24)'],
    ['10.0.5.0/24', 6, 'is an IPv4 CIDR, not IPv6'],
    ['fd00::/129', 6, 'longer than the 128 bits of an IPv6 address'],
    ['fd00::1/64', 6, 'has host bits set (its network is fd00::/64)'],
  ] as const)('says what is wrong with %j as IPv%d', (text, family, reason) => {
    expect(why(parseSubnet(text, family))).toContain(reason);
  });

  it('accepts exactly the canonical subnets (no host bits), whatever the prefix', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 32n) - 1n }), fc.nat(32), (value, prefix) => {
        const host = (1n << BigInt(32 - prefix)) - 1n;
        const r = parseSubnet(`${formatAddress(4, value)}/${prefix}`, 4);
        if ((value & host) === 0n)
          expect(r.ok && formatSubnet(r.value)).toBe(`${formatAddress(4, value)}/${prefix}`);
        else expect(why(r)).toContain('host bits');
      }),
    );
  });
});

describe('parseAddressWithPrefix', () => {
  it('reads an optional prefix within the family width', () => {
    expect(parseAddressWithPrefix('fd00::5/64', 6)).toMatchObject({
      ok: true,
      value: { prefix: 64 },
    });
    expect(parseAddressWithPrefix('10.0.5.5', 4)).toMatchObject({
      ok: true,
      value: { prefix: undefined },
    });
    expect(why(parseAddressWithPrefix('10.0.5.5/33', 4))).toContain('not a number from 0 to 32');
  });
});
