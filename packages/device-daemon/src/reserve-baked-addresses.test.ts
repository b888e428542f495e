import { describe, expect, it } from 'vitest';
import { allocateAddress } from './allocate-address.js';
import { EMPTY_LEASE_BOOK } from './lease.js';
import { reserveBakedAddresses } from './reserve-baked-addresses.js';
import { bridgePool, ip } from './test-fixtures.js';

const pvcnet = bridgePool('pvcnet', '10.0.3.0/24', {
  subnet6: 'fd00:3::/64',
  gateway6: 'fd00:3::1',
});
const pools = new Map([['pvcnet', pvcnet]]);
const baked = (...texts: string[]) =>
  texts.map((t, index) => ({
    index,
    family: t.includes(':') ? (6 as const) : (4 as const),
    ip: ip(t),
    line: index + 1,
  }));

describe('reserveBakedAddresses', () => {
  it('reserves an in-pool address as static:<container>, so the pool container gets the next one', () => {
    const r = reserveBakedAddresses(EMPTY_LEASE_BOOK, pools, {
      container: 'legacy',
      addresses: baked('10.0.3.2'),
    });
    expect(r.results).toEqual([
      { container: 'legacy', address: '10.0.3.2', pool: 'pvcnet', outcome: 'reserved' },
    ]);
    expect([...r.book.leases.values()]).toMatchObject([
      { owner: 'static:legacy', kind: 'reserved', address: '10.0.3.2' },
    ]);
    expect(
      allocateAddress(r.book, pvcnet, { family: 4, owner: 'app', interface: 'eth0' }).lease.address,
    ).toBe('10.0.3.3');
  });

  it.each([
    ['outside every pool', '192.168.1.5', 'outside-pools'],
    ['the gateway', '10.0.3.1', 'gateway-clash'],
    ['the broadcast address', '10.0.3.255', 'not-host-address'],
    ['outside every IPv6 pool', 'fd00:9::5', 'outside-pools'],
    ['the IPv6 gateway', 'fd00:3::1', 'gateway-clash'],
    ['the subnet-router anycast address', 'fd00:3::', 'not-host-address'],
  ])('does not reserve an address %s', (_why, text, outcome) => {
    const r = reserveBakedAddresses(EMPTY_LEASE_BOOK, pools, {
      container: 'legacy',
      addresses: baked(text),
    });
    expect(r.results[0]?.outcome).toBe(outcome);
    expect(r.book.leases.size).toBe(0);
  });

  it('skips duplicates', () => {
    const r = reserveBakedAddresses(EMPTY_LEASE_BOOK, pools, {
      container: 'legacy',
      addresses: baked('10.0.3.7', '10.0.3.7'),
    });
    expect(r.results.map((x) => x.outcome)).toEqual(['reserved', 'duplicate']);
    expect(r.book.leases.size).toBe(1);
  });

  it('reserves a baked IPv6 address in the pool family that holds it', () => {
    const r = reserveBakedAddresses(EMPTY_LEASE_BOOK, pools, {
      container: 'legacy',
      addresses: baked('10.0.3.2', 'fd00:3::2'),
    });
    expect(r.results.map((x) => [x.address, x.outcome])).toEqual([
      ['10.0.3.2', 'reserved'],
      ['fd00:3::2', 'reserved'],
    ]);
    expect(
      allocateAddress(r.book, pvcnet, { family: 6, owner: 'app', interface: 'eth0' }).lease.address,
    ).toBe('fd00:3::3');
  });
});
