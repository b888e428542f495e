import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allocateAddress } from './allocate-address.js';
import type { LeaseBook } from './lease.js';
import { EMPTY_LEASE_BOOK, filterLeases } from './lease.js';
import { bridgePool, bridgePool6, ip, thrown } from './test-fixtures.js';

function fill(
  book: LeaseBook,
  pool: ReturnType<typeof bridgePool>,
  owners: string[],
): { book: LeaseBook; addresses: string[] } {
  const addresses: string[] = [];
  for (const owner of owners) {
    const r = allocateAddress(book, pool, { family: 4, owner, interface: 'eth0' });
    book = r.book;
    addresses.push(r.lease.address);
  }
  return { book, addresses };
}

describe('allocateAddress', () => {
  const p29 = bridgePool('small', '10.0.5.0/29');

  it('starts after the gateway and derives the MAC from the address', () => {
    const { lease } = allocateAddress(EMPTY_LEASE_BOOK, p29, {
      family: 4,
      owner: 'c0',
      interface: 'eth0',
    });
    expect(lease).toMatchObject({ address: '10.0.5.2', mac: '02:00:0a:00:05:02', kind: 'dynamic' });
  });

  it('hands out the 5 host addresses of a /29 and then refuses', () => {
    const { book, addresses } = fill(EMPTY_LEASE_BOOK, p29, ['c0', 'c1', 'c2', 'c3', 'c4']);
    expect(addresses).toEqual(['10.0.5.2', '10.0.5.3', '10.0.5.4', '10.0.5.5', '10.0.5.6']);
    expect(
      thrown(() => allocateAddress(book, p29, { family: 4, owner: 'c5', interface: 'eth0' })),
    ).toMatchObject({ code: 'PoolExhausted' });
  });

  it('wraps around to a released address (Pantavisor lost it until restart)', () => {
    const full = fill(EMPTY_LEASE_BOOK, p29, ['c0', 'c1', 'c2', 'c3', 'c4']).book;
    const released = filterLeases(full, (l) => l.owner !== 'c2');
    expect(
      allocateAddress(released, p29, { family: 4, owner: 'c9', interface: 'eth0' }).lease.address,
    ).toBe('10.0.5.4');
  });

  it('is round-robin: a released address is not reused while others are free', () => {
    const { book } = fill(EMPTY_LEASE_BOOK, p29, ['c0', 'c1']);
    const released = filterLeases(book, (l) => l.owner !== 'c0');
    expect(
      allocateAddress(released, p29, { family: 4, owner: 'c2', interface: 'eth0' }).lease.address,
    ).toBe('10.0.5.4');
  });

  it('reuses the lease of the same (pool, container, interface)', () => {
    const first = allocateAddress(EMPTY_LEASE_BOOK, p29, {
      family: 4,
      owner: 'c0',
      interface: 'eth0',
    });
    const again = allocateAddress(first.book, p29, { family: 4, owner: 'c0', interface: 'eth0' });
    expect(again.lease).toBe(first.lease);
    expect(again.book).toBe(first.book);
    const other = allocateAddress(first.book, p29, { family: 4, owner: 'c0', interface: 'eth1' });
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
      thrown(() => allocateAddress(book, pool, { family: 4, owner: 'c253', interface: 'eth0' })),
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
            book = allocateAddress(book, pool, {
              family: 4,
              owner: `c${o.owner}`,
              interface: 'eth0',
            }).book;
          } catch (e) {
            // Exhaustion only when every host address but the gateway is taken.
            expect(e).toMatchObject({ code: 'PoolExhausted' });
            expect(before).toBe(13);
          }
        }
        const ips = [...book.leases.values()].map((l) => l.ip);
        expect(new Set(ips).size).toBe(ips.length);
        for (const a of ips) {
          expect(a).toBeGreaterThan(ip('10.2.0.0'));
          expect(a).toBeLessThan(ip('10.2.0.15'));
          expect(a).not.toBe(ip('10.2.0.9'));
        }
      }),
    );
  });

  describe('IPv6', () => {
    const v6 = bridgePool6('six', 'fd00:6::/64');

    it('starts after the gateway, skips the subnet-router anycast and derives the MAC from the low bits', () => {
      const { lease } = allocateAddress(EMPTY_LEASE_BOOK, v6, {
        family: 6,
        owner: 'c0',
        interface: 'eth0',
      });
      expect(lease).toMatchObject({ family: 6, address: 'fd00:6::2', mac: '02:00:00:00:00:02' });
    });

    it('keeps one cursor per family: a dual-stack pool walks both from its gateways', () => {
      const dual = bridgePool('dual', '10.0.8.0/24', {
        subnet6: 'fd00:8::/64',
        gateway6: 'fd00:8::1',
      });
      let book = EMPTY_LEASE_BOOK;
      const got: string[] = [];
      for (const [owner, family] of [
        ['a', 4],
        ['a', 6],
        ['b', 6],
        ['b', 4],
      ] as const) {
        const r = allocateAddress(book, dual, { family, owner, interface: 'eth0' });
        book = r.book;
        got.push(r.lease.address);
      }
      expect(got).toEqual(['10.0.8.2', 'fd00:8::2', 'fd00:8::3', '10.0.8.3']);
      expect(book.leases.size).toBe(4);
    });

    it('uses the last address of a small IPv6 subnet (no broadcast) and refuses when full', () => {
      const small = bridgePool6('tiny', 'fd00:7::/126');
      const { book, addresses } = [0, 1].reduce(
        (acc, i) => {
          const r = allocateAddress(acc.book, small, {
            family: 6,
            owner: `c${i}`,
            interface: 'eth0',
          });
          return { book: r.book, addresses: [...acc.addresses, r.lease.address] };
        },
        { book: EMPTY_LEASE_BOOK, addresses: [] as string[] },
      );
      expect(addresses).toEqual(['fd00:7::2', 'fd00:7::3']);
      expect(
        thrown(() => allocateAddress(book, small, { family: 6, owner: 'c2', interface: 'eth0' })),
      ).toMatchObject({ code: 'PoolExhausted' });
    });

    it('refuses a family the pool does not serve', () => {
      expect(
        thrown(() =>
          allocateAddress(EMPTY_LEASE_BOOK, v6, { family: 4, owner: 'c', interface: 'eth0' }),
        ),
      ).toMatchObject({ code: 'UnknownPool' });
    });
  });
});
