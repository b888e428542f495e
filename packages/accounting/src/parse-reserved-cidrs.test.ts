import { describe, expect, it } from 'vitest';
import { formatCidr } from './format-cidr.js';
import { parseReservedCidrs } from './parse-reserved-cidrs.js';

describe('parseReservedCidrs', () => {
  it.each([
    ['trimmed', [' 10.0.0.0/24 '], ['10.0.0.0/24'], []],
    ['tab and newline trimmed', ['\t10.0.0.0/24\n'], ['10.0.0.0/24'], []],
    ['bare IPv4 becomes /32', ['10.1.0.1'], ['10.1.0.1/32'], []],
    ['bare IPv6 becomes /128', ['fd00::5'], ['fd00::5/128'], []],
    ['host bits are masked', ['10.0.0.5/24'], ['10.0.0.0/24'], []],
    ['blank entries are ignored', ['', '   '], [], []],
    ['not a CIDR', ['not-a-cidr'], [], ['not-a-cidr']],
    ['prefix too long', ['10.0.0.0/33'], [], ['10.0.0.0/33']],
    ['leading zero octet', ['10.0.0.01'], [], ['10.0.0.01']],
    ['IPv4-mapped CIDR maps to IPv4', ['::ffff:10.0.0.0/120'], ['10.0.0.0/24'], []],
    ['IPv4-mapped IP maps to IPv4 /32', ['::ffff:10.0.0.7'], ['10.0.0.7/32'], []],
    ['short IPv6 prefix over the mapped range stays IPv6', ['::/64'], ['::/64'], []],
    [
      'mixed list keeps order and reports the raw bad entries',
      ['10.0.0.0/30', ' bad ', 'fd00::/126', '10.0.0.0/33'],
      ['10.0.0.0/30', 'fd00::/126'],
      [' bad ', '10.0.0.0/33'],
    ],
  ])('%s', (_name, entries, cidrs, invalid) => {
    const got = parseReservedCidrs(entries);
    expect(got.cidrs.map(formatCidr)).toEqual(cidrs);
    expect(got.invalid).toEqual(invalid);
  });
});
