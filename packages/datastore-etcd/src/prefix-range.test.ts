import { describe, expect, it } from 'vitest';
import { prefixRange } from './prefix-range.js';

describe('prefixRange', () => {
  it.each([
    ['/calico/', [...Buffer.from('/calico0')]],
    ['/calico/ipam/v2/handle/', [...Buffer.from('/calico/ipam/v2/handle0')]],
    [Buffer.from([0x61, 0xff]), [0x62]],
    [Buffer.from([0x61, 0xfe, 0xff, 0xff]), [0x61, 0xff]],
    [Buffer.from([0xff, 0xff]), [0]],
    ['', [0]],
  ])('%j ends at %j', (prefix, end) => {
    const range = prefixRange(prefix);
    expect([...range.start]).toEqual([...Buffer.from(prefix)]);
    expect([...range.end]).toEqual(end);
  });

  it('does not change the prefix it was given', () => {
    const prefix = Buffer.from('/a/');
    prefixRange(prefix).end[0] = 0;
    expect(prefix.toString()).toBe('/a/');
  });
});
