// Fuzzing what etcd hands back (issue #20): any key under /calico/ with any bytes as its value.
// A key netledger reads decodes to a KVPair or is refused with CorruptValue naming that key; the
// bytes read are never changed. No etcd is needed: this is the adapter's whole read conversion.
import { IpamError } from '@netledger/ipam-core';
import { describeKey, pathToKey } from '@netledger/ipam-core/adapter';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toKvPair } from './to-kv-pair.js';

const RUNS = 10_000;
const ENGINE_ERROR =
  /Cannot read properties|is not a function|is not iterable|is not defined|Cannot convert|Invalid array length|Maximum call stack|Cannot mix BigInt|Invalid time value/;

const U64_PAST = [2n ** 64n, 2n ** 64n + 1n, 2n ** 80n, -1n, -(2n ** 63n)];

/** Keys as Calico lays them out, and some that only look like them. */
const path = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.constantFrom(
      '/calico/ipam/v2/assignment/ipv4/block/10.0.0.0-26',
      '/calico/ipam/v2/assignment/ipv6/block/fd00::-122',
      '/calico/ipam/v2/host/node1/ipv4/block/10.0.0.0-26',
      '/calico/ipam/v2/handle/k8s-pod-network.abc',
      '/calico/ipam/v2/config',
      '/calico/resources/v3/projectcalico.org/ippools/default-ipv4',
      '/calico/resources/v3/projectcalico.org/ipreservations/r',
      '/calico/resources/v3/projectcalico.org/nodes/node1',
    ),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.constantFrom(
          '/calico/ipam/v2/assignment/ipv4/block/',
          '/calico/ipam/v2/host/',
          '/calico/ipam/v2/handle/',
          '/calico/resources/v3/projectcalico.org/ippools/',
        ),
        fc.string({ maxLength: 30 }),
      )
      .map(([a, b]) => a + b),
  },
);

/** A value that is almost a Calico block, with one damaged field. */
const damagedBlock = fc
  .record({
    field: fc.constantFrom(
      'cidr',
      'allocations',
      'unallocated',
      'attributes',
      'sequenceNumber',
      'sequenceNumberForAllocation',
      'deleted',
    ),
    value: fc.oneof(
      fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)),
      fc.constantFrom(...U64_PAST).map(String),
      fc.constantFrom('[-1]', '[64]', '[0,0]', '[5]', '{"0":-1}', '{"-1":1}', '[7]', '"1e400"'),
    ),
  })
  .map(({ field, value }) => {
    const fields: Record<string, string> = {
      cidr: '"10.0.0.0/26"',
      allocations: JSON.stringify([0, ...Array.from({ length: 63 }, () => null)]),
      unallocated: JSON.stringify(Array.from({ length: 63 }, (_, i) => i + 1)),
      attributes: '[{"handle_id":"h","secondary":{"pod":"p"}}]',
      sequenceNumber: '18446744073709551615',
      sequenceNumberForAllocation: '{"0":18446744073709551614}',
      deleted: 'false',
    };
    fields[field] = value;
    return `{${Object.entries(fields)
      .map(([k, v]) => `"${k}":${v}`)
      .join(',')}}`;
  });

/** Bytes as etcd may hold them: JSON of a kind, damaged JSON, text cut short, or raw bytes. */
const bytes = fc.oneof(
  { weight: 3, arbitrary: damagedBlock.map((t) => Buffer.from(t)) },
  {
    weight: 2,
    arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => Buffer.from(JSON.stringify(v))),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(damagedBlock, fc.nat())
      .map(([t, n]) => Buffer.from(t.slice(0, n % t.length))),
  },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 40 }).map((a) => Buffer.from(a)) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(
        '{"sequenceNumber":18446744073709551616}',
        '{"block":{"10.0.0.0/26":-1},"deleted":false}',
        '{"strict_affinity":"yes"}',
        '{"maxBlocksPerHost":-5}',
        '{"state":7}',
        '\u00ff\u00fe{',
      )
      .map((t) => Buffer.from(t, 'latin1')),
  },
);

describe('etcd values read back (fuzzing)', () => {
  it(`toKvPair: any bytes under any Calico key decode or are CorruptValue naming the key (${RUNS} cases)`, () => {
    let refused = 0;
    let decoded = 0;
    fc.assert(
      fc.property(path, bytes, (p, value) => {
        const key = pathToKey(p);
        // Keys netledger does not read are skipped by every list, never decoded.
        if (!key) return;
        const before = Buffer.from(value);
        try {
          const kv = toKvPair(key, { value, mod_revision: '7', create_revision: '3' });
          expect(kv).toMatchObject({ key, revision: '7', uid: '3' });
          decoded++;
        } catch (e) {
          if (!(e instanceof IpamError)) throw e;
          expect(e.code).toBe('CorruptValue');
          expect(e.identifier).toBe(describeKey(key));
          expect(e.message).toContain(describeKey(key));
          expect(e.message).not.toMatch(ENGINE_ERROR);
          refused++;
        }
        expect(value.equals(before)).toBe(true);
      }),
      { numRuns: RUNS },
    );
    // Both outcomes are exercised, not one of them only.
    expect(refused).toBeGreaterThan(RUNS / 10);
    expect(decoded).toBeGreaterThan(RUNS / 20);
  });
});
