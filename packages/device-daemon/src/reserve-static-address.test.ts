import { describe, expect, it } from 'vitest';
import { allocateAddress } from './allocate-address.js';
import { EMPTY_LEASE_BOOK } from './lease.js';
import { reserveStaticAddress } from './reserve-static-address.js';
import { bridgePool, bridgePool6, staticAddress as addr, thrown } from './test-fixtures.js';

const pool = bridgePool('st', '10.0.6.0/24');

describe('reserveStaticAddress', () => {
  it('reserves a static address idempotently for the same owner', () => {
    const first = reserveStaticAddress(EMPTY_LEASE_BOOK, pool, {
      owner: 's1',
      interface: 'eth0',
      address: addr('10.0.6.50'),
    });
    expect(first.lease).toMatchObject({
      address: '10.0.6.50',
      kind: 'static',
      mac: '02:00:0a:00:06:32',
    });
    const again = reserveStaticAddress(first.book, pool, {
      owner: 's1',
      interface: 'eth0',
      address: addr('10.0.6.50/24'),
    });
    expect(again.book).toBe(first.book);
  });

  it('makes the allocator skip the reserved address', () => {
    const { book } = reserveStaticAddress(EMPTY_LEASE_BOOK, pool, {
      owner: 's',
      interface: 'eth0',
      address: addr('10.0.6.2'),
    });
    expect(
      allocateAddress(book, pool, { family: 4, owner: 'd', interface: 'eth0' }).lease.address,
    ).toBe('10.0.6.3');
  });

  it.each([
    ['outside the subnet', '10.0.7.5', 'StaticOutsideSubnet'],
    ['with a different prefix', '10.0.6.5/16', 'StaticOutsideSubnet'],
    ['the network address', '10.0.6.0', 'StaticNotHostAddress'],
    ['the broadcast address', '10.0.6.255', 'StaticNotHostAddress'],
    ['the gateway', '10.0.6.1', 'StaticInUse'],
    ['leased to another owner', '10.0.6.2', 'StaticInUse'],
  ])('refuses an address %s', (_why, text, code) => {
    const taken = allocateAddress(EMPTY_LEASE_BOOK, pool, {
      family: 4,
      owner: 'other',
      interface: 'eth0',
    }).book;
    expect(
      thrown(() =>
        reserveStaticAddress(taken, pool, { owner: 's1', interface: 'eth0', address: addr(text) }),
      ),
    ).toMatchObject({ code });
  });

  it.each([
    ['outside the subnet', 'fd00:7::5', 'StaticOutsideSubnet'],
    ['with a different prefix', 'fd00:6::5/80', 'StaticOutsideSubnet'],
    ['the subnet-router anycast address', 'fd00:6::', 'StaticNotHostAddress'],
    ['the gateway', 'fd00:6::1', 'StaticInUse'],
    ['in a pool without IPv6', '10.0.6.9', 'StaticOutsideSubnet'],
  ])('refuses an IPv6 address %s', (_why, text, code) => {
    const v6 = bridgePool6('six', 'fd00:6::/64');
    expect(
      thrown(() =>
        reserveStaticAddress(EMPTY_LEASE_BOOK, v6, {
          owner: 's1',
          interface: 'eth0',
          address: addr(text),
        }),
      ),
    ).toMatchObject({ code });
  });

  it('reserves a static IPv6 address and the allocator skips it', () => {
    const v6 = bridgePool6('six', 'fd00:6::/64');
    const { book, lease } = reserveStaticAddress(EMPTY_LEASE_BOOK, v6, {
      owner: 's',
      interface: 'eth0',
      address: addr('fd00:6::2/64'),
    });
    expect(lease).toMatchObject({ family: 6, address: 'fd00:6::2', kind: 'static' });
    expect(
      allocateAddress(book, v6, { family: 6, owner: 'd', interface: 'eth0' }).lease.address,
    ).toBe('fd00:6::3');
  });
});
