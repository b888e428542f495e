import { describe, expect, it } from 'vitest';
import { blockCidrForIp, poolForIp } from './pool-for-ip.js';
import { testPool } from './test-pools.js';

const pools = [
  testPool('a', { cidr: '10.0.0.0/24' }),
  testPool('b', { cidr: '10.0.0.0/16', blockSize: 28 }),
  testPool('six', { cidr: 'fd80:24e2:f998:72d6::/120' }),
  { metadata: { name: 'broken' }, spec: { cidr: 'nope' } },
];

describe('poolForIp', () => {
  it.each([
    ['10.0.0.5', 'a'],
    ['10.0.1.5', 'b'],
    ['fd80:24e2:f998:72d6::42', 'six'],
    ['11.0.0.1', undefined],
    ['fd80::1', undefined],
  ])('%s -> %s (first containing pool, list order)', (ip, name) => {
    expect(poolForIp(ip, pools)?.metadata.name).toBe(name);
  });
  it('refuses a malformed address', () => {
    expect(() => poolForIp('10.0.0', pools)).toThrow(
      expect.objectContaining({ code: 'InvalidArgument' }),
    );
  });
});

describe('blockCidrForIp', () => {
  it.each([
    ['10.0.0.5', 0, '10.0.0.0/26'],
    ['10.0.0.200', 0, '10.0.0.192/26'],
    ['10.0.3.77', 1, '10.0.3.64/28'],
    ['fd80:24e2:f998:72d6::42', 2, 'fd80:24e2:f998:72d6::40/122'],
  ])('%s in pool %d -> %s', (ip, index, block) => {
    expect(blockCidrForIp(ip, pools[index]!)).toBe(block);
  });
  it.each(['11.0.0.1', 'fd80::1', 'x'])('refuses %s outside the pool', (ip) => {
    expect(() => blockCidrForIp(ip, pools[0]!)).toThrow(
      expect.objectContaining({ code: 'InvalidArgument' }),
    );
  });
});
