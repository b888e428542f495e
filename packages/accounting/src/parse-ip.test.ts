import fc from 'fast-check';
import { Address4, Address6 } from 'ip-address';
import { describe, expect, it } from 'vitest';
import { AccountingError } from './accounting-error.js';
import { formatIp } from './format-ip.js';
import { parseIp } from './parse-ip.js';
import { anyIp } from './test-arbitraries.js';

describe('parseIp', () => {
  it.each([
    ['0.0.0.0', 4, 0n],
    ['10.0.0.1', 4, 0x0a000001n],
    ['255.255.255.255', 4, 0xffffffffn],
    ['::', 6, 0n],
    ['::1', 6, 1n],
    ['1::', 6, 1n << 112n],
    ['FD80:24E2::1', 6, (0xfd80n << 112n) | (0x24e2n << 96n) | 1n],
    ['0001:0:0:0:0:0:0:0002', 6, (1n << 112n) | 2n],
    ['1:2:3:4:5:6:7::', 6, 0x0001000200030004000500060007_0000n],
    ['::2:3:4:5:6:7:8', 6, 0x0000000200030004000500060007_0008n],
    ['::ffff:10.0.0.1', 6, 0xffff0a000001n],
    ['64:ff9b::192.0.2.33', 6, (0x64n << 112n) | (0xff9bn << 96n) | 0xc0000221n],
  ])('parses %s', (text, version, value) => {
    expect(parseIp(text)).toEqual({ version, value });
  });

  it.each([
    ['empty', ''],
    ['leading zero octet', '10.0.0.01'],
    ['leading zero first octet', '010.0.0.1'],
    ['octet too big', '256.0.0.1'],
    ['three octets', '10.0.1'],
    ['five octets', '10.0.0.0.1'],
    ['leading space', ' 10.0.0.1'],
    ['trailing newline', '10.0.0.1\n'],
    ['inner space', '10.0.0. 1'],
    ['sign', '+10.0.0.1'],
    ['hex octet', '0x0a.0.0.1'],
    ['prefix', '10.0.0.1/32'],
    ['v6 prefix', '::1/128'],
    ['zone id', 'fe80::1%eth0'],
    ['brackets', '[::1]'],
    ['two ellipses', '1::2::3'],
    ['triple colon', '1:::2'],
    ['group too long', '12345::'],
    ['nine groups', '1:2:3:4:5:6:7:8:9'],
    ['seven groups without ellipsis', '1:2:3:4:5:6:7'],
    ['ellipsis standing for nothing', '1:2:3:4:5:6:7:8::'],
    ['leading single colon', ':1:2:3:4:5:6:7'],
    ['trailing single colon', '1:2:3:4:5:6:7:'],
    ['non-hex', 'g::1'],
    ['v4 tail with leading zero', '::ffff:10.0.0.01'],
    ['v4 not last', '::1.2.3.4:1'],
    ['v4 before ellipsis', '1.2.3.4::'],
    ['v4 tail too many groups', '1:2:3:4:5:6:7:1.2.3.4'],
  ])('rejects %s (%j)', (_name, text) => {
    expect(() => parseIp(text)).toThrow(AccountingError);
    expect(() => parseIp(text)).toThrow(expect.objectContaining({ code: 'InvalidIp' }));
  });

  it.each([
    ['leading zero octet', '10.0.0.01', "IPv4 addresses can't have leading zeroes."],
    ['octet too big', '256.0.0.1', 'Invalid IPv4 address.'],
    ['two ellipses', '1::2::3', 'Too many :: groups found'],
    ['brackets', '[::1]', 'Bad characters detected in address: []'],
    ['zone id', 'fe80::1%eth0', 'a zone id is not allowed'],
    ['prefix', '10.0.0.1/32', 'a prefix is not allowed here'],
  ])('says why it rejects %s: the reason ip-address gives, or ours', (_name, text, why) => {
    expect(() => parseIp(text)).toThrow(`invalid IP address ${JSON.stringify(text)}: ${why}`);
  });

  it('round-trips every address through formatIp', () => {
    fc.assert(
      fc.property(anyIp, (ip) => {
        expect(parseIp(formatIp(ip))).toEqual(ip);
      }),
    );
  });

  it("converts to the value of ip-address's bigInt() in every form it writes", () => {
    fc.assert(
      fc.property(anyIp, (ip) => {
        if (ip.version === 4) {
          expect(parseIp(Address4.fromBigInt(ip.value).correctForm())).toEqual(ip);
        } else {
          const a = Address6.fromBigInt(ip.value);
          for (const text of [a.canonicalForm(), a.correctForm(), a.to4in6()]) {
            expect(parseIp(text)).toEqual(ip);
          }
        }
      }),
    );
  });
});
