import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allocateAddress } from './allocate-address.js';
import { broadcastOf } from './ipv4.js';
import type { LeaseBook } from './lease.js';
import { EMPTY_LEASE_BOOK, filterLeases } from './lease.js';
import { bridgePool, thrown } from './test-fixtures.js';

function fill(
  book: LeaseBook,
  pool: ReturnType<typeof bridgePool>,
  owners: string[],
): { book: LeaseBook; addresses: string[] } {
  const addresses: string[] = [];
  for (const owner of owners) {
    const r = allocateAddress(book, pool, { owner, interface: 'eth0' });
    book = r.book;
    addresses.push(r.lease.address);
  }
  return { book, addresses };
}

describe('allocateAddress', () => {
  const p29 = bridgePool('small', '10.0.5.0/29');

  it('starts after the gateway and derives the MAC from the address', () => {
    const { lease } = allocateAddress(EMPTY_LEASE_BOOK, p29, { owner: 'c0', interface: 'eth0' });
    expect(lease).toMatchObject({ address: '10.0.5.2', mac: '02:00:0a:00:05:02', kind: 'dynamic' });
  });

  it('hands out the 5 host addresses of a /29 and then refuses', () => {
    const { book, addresses } = fill(EMPTY_LEASE_BOOK, p29, ['c0', 'c1', 'c2', 'c3', 'c4']);
    expect(addresses).toEqual(['10.0.5.2', '10.0.5.3', '10.0.5.4', '10.0.5.5', '10.0.5.6']);
    expect(
      thrown(() => allocateAddress(book, p29, { owner: 'c5', interface: 'eth0' })),
    ).toMatchObject({ code: 'PoolExhausted' });
  });

  it('wraps around to a released address (Pantavisor lost it until restart)', () => {
    const full = fill(EMPTY_LEASE_BOOK, p29, ['c0', 'c1', 'c2', 'c3', 'c4']).book;
    const released = filterLeases(full, (l) => l.owner !== 'c2');
    expect(allocateAddress(released, p29, { owner: 'c9', interface: 'eth0' }).lease.address).toBe(
      '10.0.5.4',
    );
  });

  it('is round-robin: a released address is not reused while others are free', () => {
    const { book } = fill(EMPTY_LEASE_BOOK, p29, ['c0', 'c1']);
    const released = filterLeases(book, (l) => l.owner !== 'c0');
    expect(allocateAddress(released, p29, { owner: 'c2', interface: 'eth0' }).lease.address).toBe(
      '10.0.5.4',
    );
  });

  it('reuses the lease of the same (pool, container, interface)', () => {
    const first = allocateAddress(EMPTY_LEASE_BOOK, p29, { owner: 'c0', interface: 'eth0' });
    const again = allocateAddress(first.book, p29, { owner: 'c0', interface: 'eth0' });
    expect(again.lease).toBe(first.lease);
    expect(again.book).toBe(first.book);
    const other = allocateAddress(first.book, p29, { owner: 'c0', interface: 'eth1' });
    expect(other.lease.address).toBe('10.0.5.3');
  });

  it('uses addresses below a gateway in the middle of the range', () => {
    const pool = bridgePool('mid', '10.0.7.0/29', { gateway: '10.0.7.5' });
    const { addresses } = fill(EMPTY_LEASE_BOOK, pool, ['a', 'b', 'c', 'd', 'e']);
    expect(addresses).toEqual(['10.0.7.6', '10.0.7.1', '10.0.7.2', '10.0.7.3', '10.0.7.4']);
  });

  it('serves 253 containers from a /24 and refuses the 254th', () => {
    const pool = bridgePool('p24', '10.1.0.0/24');
    const owners = Array.from({ length: 253 }, (_, i) => `c${i}`);
    const { book, addresses } = fill(EMPTY_LEASE_BOOK, pool, owners);
    expect(new Set(addresses).size).toBe(253);
    expect(addresses).not.toContain('10.1.0.1');
    expect(
      thrown(() => allocateAddress(book, pool, { owner: 'c253', interface: 'eth0' })),
    ).toMatchObject({ code: 'PoolExhausted' });
  });

  it('keeps its invariants under any sequence of allocations and releases', () => {
    const pool = bridgePool('prop', '10.2.0.0/28', { gateway: '10.2.0.9' });
    const op = fc.oneof(
      fc.record({ kind: fc.constant('alloc' as const), owner: fc.integer({ min: 0, max: 20 }) }),
      fc.record({ kind: fc.constant('release' as const), owner: fc.integer({ min: 0, max: 20 }) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 80 }), (ops) => {
        let book = EMPTY_LEASE_BOOK;
        for (const o of ops) {
          if (o.kind === 'release') {
            book = filterLeases(book, (l) => l.owner !== `c${o.owner}`);
            continue;
          }
          const before = book.leases.size;
          try {
            book = allocateAddress(book, pool, { owner: `c${o.owner}`, interface: 'eth0' }).book;
          } catch (e) {
            // Exhaustion only when every host address but the gateway is taken.
            expect(e).toMatchObject({ code: 'PoolExhausted' });
            expect(before).toBe(13);
          }
        }
        const ips = [...book.leases.values()].map((l) => l.ip);
        expect(new Set(ips).size).toBe(ips.length);
        for (const ip of ips) {
          expect(ip).toBeGreaterThan(pool.cidr.base);
          expect(ip).toBeLessThan(broadcastOf(pool.cidr));
          expect(ip).not.toBe(pool.gatewayIp);
        }
      }),
    );
  });
});
