import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  cidrContainsCidr,
  cidrContainsIp,
  cidrSize,
  cidrsOverlap,
  hostCidr,
  lastAddress,
  maskIp,
  nthAddress,
  ordinalOf,
} from './cidr.js';
import { formatCidr } from './format-cidr.js';
import { formatIp } from './format-ip.js';
import { parseCidr } from './parse-cidr.js';
import { parseIp } from './parse-ip.js';
import { ALL_OFFSETS, UNIVERSES, cidrIn, ipAt, offsetsOf } from './test-arbitraries.js';

const cidr = (text: string) => parseCidr(text);
const ip = (text: string) => parseIp(text);

describe('parseCidr and formatCidr', () => {
  it.each([
    ['10.0.0.0/26', 4, 26],
    ['0.0.0.0/0', 4, 0],
    ['10.0.0.1/32', 4, 32],
    ['fd80:24e2:f998:72d6::/122', 6, 122],
    ['::/0', 6, 0],
    ['::1/128', 6, 128],
  ])('round-trips %s', (text, version, prefix) => {
    expect(cidr(text)).toMatchObject({ version, prefix });
    expect(formatCidr(cidr(text))).toBe(text);
  });

  it.each([
    ['FD80:24E2:F998:72D6:0:0:0:0/122', 'fd80:24e2:f998:72d6::/122'],
    ['2001:0db8:0000::/48', '2001:db8::/48'],
  ])('formats %s canonically as %s', (text, expected) => {
    expect(formatCidr(cidr(text))).toBe(expected);
  });

  it.each([
    ['host bits set (v4)', '10.0.0.1/24', /host bits are set.*10\.0\.0\.0\/24/],
    ['host bits set (v6)', 'fd00::1/120', /host bits are set.*fd00::\/120/],
    ['prefix too long (v4)', '10.0.0.0/33', /prefix length must be 0-32/],
    ['prefix too long (v6)', '::/129', /prefix length must be 0-128/],
    ['negative prefix', '10.0.0.0/-1', /prefix length/],
    ['leading zero prefix', '10.0.0.0/08', /prefix length/],
    ['empty prefix', '10.0.0.0/', /prefix length/],
    ['prefix with space', '10.0.0.0/ 8', /prefix length/],
    ['two slashes', '10.0.0.0/8/8', /prefix length/],
    ['no prefix', '10.0.0.0', /missing \/prefix/],
    ['bare v6', 'fd00::', /missing \/prefix/],
    ['leading zero octet', '10.0.0.00/24', /malformed address/],
    ['whitespace', ' 10.0.0.0/24', /malformed address/],
    ['trailing whitespace', '10.0.0.0/24 ', /prefix length/],
    ['zone id', 'fe80::%eth0/64', /malformed address/],
    ['empty', '', /missing \/prefix/],
    ['v4 prefix on nothing', '/24', /malformed address/],
  ])('rejects %s (%j)', (_name, text, message) => {
    expect(() => parseCidr(text)).toThrow(expect.objectContaining({ code: 'InvalidCidr' }));
    expect(() => parseCidr(text)).toThrow(message);
  });

  it('says why the address is malformed, as ip-address does', () => {
    expect(() => parseCidr('10.0.0.00/24')).toThrow(
      `invalid CIDR "10.0.0.00/24": malformed address (IPv4 addresses can't have leading zeroes.)`,
    );
  });

  it('applies strictness on every call, whatever was parsed before', () => {
    expect(() => parseCidr('10.9.0.1/24')).toThrow(/host bits are set/);
    expect(formatCidr(parseCidr('10.9.0.1/24', { strict: false }))).toBe('10.9.0.0/24');
    expect(() => parseCidr('10.9.0.1/24')).toThrow(/host bits are set/);
    expect(() => parseCidr('10.9.0.1/24', {})).toThrow(/host bits are set/);
  });

  it('gives the same frozen value for the same text', () => {
    const first = parseCidr('10.9.1.0/24');
    expect(Object.isFrozen(first)).toBe(true);
    expect(parseCidr('10.9.1.0/24')).toEqual({ version: 4, base: 0x0a090100n, prefix: 24 });
    expect(() => {
      (first as { prefix: number }).prefix = 8;
    }).toThrow(TypeError);
  });

  it.each([
    ['10.0.0.1/24', '10.0.0.0/24'],
    ['10.0.0.200/26', '10.0.0.192/26'],
    ['fd00::1:ff/120', 'fd00::1:0/120'],
    ['255.255.255.255/0', '0.0.0.0/0'],
  ])('strict:false masks %s to %s', (text, expected) => {
    expect(formatCidr(parseCidr(text, { strict: false }))).toBe(expected);
  });

  it('strict:false still rejects malformed input', () => {
    expect(() => parseCidr('10.0.0.1/33', { strict: false })).toThrow(
      expect.objectContaining({ code: 'InvalidCidr' }),
    );
  });
});

describe('CIDR arithmetic', () => {
  it.each([
    ['10.0.0.0/26', 64n, '10.0.0.63'],
    ['10.0.0.0/32', 1n, '10.0.0.0'],
    ['0.0.0.0/0', 2n ** 32n, '255.255.255.255'],
    ['fd80:24e2:f998:72d6::/122', 64n, 'fd80:24e2:f998:72d6::3f'],
    ['::/0', 2n ** 128n, 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
  ])('%s has size %s and last address %s', (text, size, last) => {
    expect(cidrSize(cidr(text))).toBe(size);
    expect(formatIp(lastAddress(cidr(text)))).toBe(last);
  });

  it('hostCidr and maskIp', () => {
    expect(formatCidr(hostCidr(ip('10.1.2.3')))).toBe('10.1.2.3/32');
    expect(formatCidr(hostCidr(ip('fd00::5')))).toBe('fd00::5/128');
    expect(formatCidr(maskIp(ip('10.1.2.3'), 16))).toBe('10.1.0.0/16');
    expect(formatCidr(maskIp(ip('fd00::ffff'), 116))).toBe('fd00::f000/116');
    expect(() => maskIp(ip('10.1.2.3'), 33)).toThrow(
      expect.objectContaining({ code: 'InvalidCidr' }),
    );
    expect(() => maskIp(ip('10.1.2.3'), 1.5)).toThrow(
      expect.objectContaining({ code: 'InvalidCidr' }),
    );
  });

  it('nthAddress and ordinalOf', () => {
    const block = cidr('10.0.0.64/26');
    expect(formatIp(nthAddress(block, 0))).toBe('10.0.0.64');
    expect(formatIp(nthAddress(block, 63n))).toBe('10.0.0.127');
    expect(ordinalOf(block, ip('10.0.0.100'))).toBe(36);
    for (const n of [64, -1, 64n, 0.5, Number.MAX_SAFE_INTEGER + 1]) {
      expect(() => nthAddress(block, n)).toThrow(expect.objectContaining({ code: 'OutOfRange' }));
    }
    expect(() => ordinalOf(block, ip('10.0.0.128'))).toThrow(
      expect.objectContaining({ code: 'OutOfRange' }),
    );
    expect(() => ordinalOf(block, ip('::ffff:10.0.0.64'))).toThrow(
      expect.objectContaining({ code: 'OutOfRange' }),
    );
    const big = cidr('fd00::/64');
    expect(ordinalOf(big, nthAddress(big, Number.MAX_SAFE_INTEGER))).toBe(Number.MAX_SAFE_INTEGER);
    expect(() => ordinalOf(big, nthAddress(big, 2n ** 53n))).toThrow(
      expect.objectContaining({ code: 'OutOfRange' }),
    );
  });

  it('never matches across versions', () => {
    expect(cidrContainsIp(cidr('0.0.0.0/0'), ip('::'))).toBe(false);
    expect(cidrContainsIp(cidr('::/0'), ip('0.0.0.0'))).toBe(false);
    expect(cidrContainsCidr(cidr('::/0'), cidr('10.0.0.0/8'))).toBe(false);
    expect(cidrsOverlap(cidr('::/0'), cidr('0.0.0.0/0'))).toBe(false);
  });

  it.each(UNIVERSES)('containment and overlap agree with brute force (IPv$version)', (u) => {
    fc.assert(
      fc.property(cidrIn(u), cidrIn(u), fc.integer({ min: 0, max: 255 }), (a, b, i) => {
        const inA = new Set(offsetsOf(u, a));
        const inB = offsetsOf(u, b);
        expect(cidrContainsIp(a, ipAt(u, i))).toBe(inA.has(i));
        expect(cidrContainsCidr(a, b)).toBe(inB.every((k) => inA.has(k)));
        expect(cidrsOverlap(a, b)).toBe(inB.some((k) => inA.has(k)));
        expect(cidrsOverlap(a, b)).toBe(cidrsOverlap(b, a));
      }),
    );
  });

  it.each(UNIVERSES)('nthAddress and ordinalOf are inverse (IPv$version)', (u) => {
    fc.assert(
      fc.property(cidrIn(u), (c) => {
        const offsets = offsetsOf(u, c);
        offsets.forEach((k, n) => {
          expect(nthAddress(c, n)).toEqual(ipAt(u, k));
          expect(ordinalOf(c, ipAt(u, k))).toBe(n);
        });
        expect(lastAddress(c)).toEqual(ipAt(u, offsets.at(-1)!));
        expect(cidrSize(c)).toBe(BigInt(offsets.length));
        const outside = ALL_OFFSETS.find((k) => !offsets.includes(k));
        if (outside !== undefined) expect(() => ordinalOf(c, ipAt(u, outside))).toThrow();
      }),
    );
  });
});
