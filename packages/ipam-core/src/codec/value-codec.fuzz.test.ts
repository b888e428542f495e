// Fuzzing what a store hands back: any text under any key, and Calico JSON with the values a
// damaged or hand-edited store holds (sequence numbers past 2^64, negative ordinals, allocations
// pointing at missing attributes, a CIDR that is not the key's). decodeValue either decodes or
// throws IpamError('CorruptValue') naming the key; what it decodes encodes again and reads back the
// same; and an IPAM client working on a store holding such a block answers every call with a
// result or an IpamError, changing nothing when it refuses.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IpamError } from '../errors.js';
import { createIpamClient } from '../client/ipam-client.js';
import { createMemoryDatastore } from '../datastore/memory-datastore.js';
import type { Datastore } from '../datastore/datastore.js';
import type { AllocationBlock } from '../model/block.js';
import type { DatastoreKey, Kind } from '../model/keys.js';
import { findBlockProblems } from '../block/block-problems.js';
import { stringifyJson } from './json.js';
import type { JsonValue } from './json.js';
import { decodeValue, encodeValue } from './value-codec.js';

const RUNS = 10_000;
// Each client case opens a store and makes six calls: 2,000 of them keep this file to a few seconds.
const CLIENT_RUNS = 2_000;
const ENGINE_ERROR =
  /Cannot read properties|is not a function|is not iterable|is not defined|Cannot convert|Invalid array length|Maximum call stack|Cannot mix BigInt|Invalid time value|undefined \(reading/;

const KEYS: readonly DatastoreKey[] = [
  { kind: 'IPAMBlock', cidr: '10.0.0.0/26' },
  { kind: 'IPAMBlock', cidr: 'fd00::/122' },
  { kind: 'BlockAffinity', host: 'h1', cidr: '10.0.0.0/26', affinityType: 'host' },
  { kind: 'IPAMHandle', handleId: 'h1' },
  { kind: 'IPAMConfig' },
  { kind: 'IPAMHost', host: 'h1' },
  { kind: 'IPPool', name: 'p' },
  { kind: 'IPReservation', name: 'r' },
  { kind: 'Node', name: 'n' },
  { kind: 'ClusterInformation', name: 'default' },
] as DatastoreKey[];

/** An IpamError with a plain message, nothing else. */
function expectClearError(e: unknown, codes: readonly string[]): asserts e is IpamError {
  if (!(e instanceof IpamError)) throw e;
  expect(codes, e.message).toContain(e.code);
  expect(e.message).not.toMatch(ENGINE_ERROR);
  expect(e.message).not.toMatch(/\n\s+at /);
}

/** Sometimes damaged: a rare field of the wrong JSON type, per field. */
const damaged = (good: fc.Arbitrary<unknown>, rate = 30): fc.Arbitrary<unknown> =>
  fc.oneof(
    { weight: rate, arbitrary: good },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) },
  );
const bigish = fc.oneof(
  { weight: 40, arbitrary: fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(1n << 64n, (1n << 64n) + 1n, 1n << 80n, -1n, -(1n << 63n)),
  },
);
/** Mostly in range; sometimes negative, past the block, or huge (all integers: JSON's). */
const ordinal = fc.oneof(
  { weight: 30, arbitrary: fc.integer({ min: 0, max: 63 }) },
  { weight: 1, arbitrary: fc.constantFrom(-1, -64, 64, 65, 1_000_000, 2 ** 53) },
);
/** An attribute index: mostly one of the few attributes, sometimes missing or negative. */
const attributeIndex = fc.oneof(
  // Rare per allocation, as one dangling index in 64 makes the whole block CorruptValue.
  { weight: 1000, arbitrary: fc.integer({ min: 0, max: 3 }) },
  { weight: 1, arbitrary: fc.constantFrom(-1, 4, 5, 99, 2 ** 40) },
);
const attrMap = damaged(
  fc.option(
    fc.dictionary(
      fc.constantFrom('pod', 'namespace', 'node', 'type', 'x'),
      fc.string({ maxLength: 6 }),
      {
        maxKeys: 3,
      },
    ),
  ),
  200,
);
const attribute = damaged(
  fc.record(
    {
      handle_id: damaged(fc.option(fc.constantFrom('h1', 'h2', '')), 200),
      secondary: attrMap,
      alternateOwnerAttrs: attrMap,
      releasedAt: damaged(
        fc.oneof(
          {
            weight: 30,
            arbitrary: fc.constantFrom('2026-01-01T00:00:00Z', '9999-12-31T23:59:59Z'),
          },
          { weight: 1, arbitrary: fc.constantFrom('not a time', '') },
        ),
        200,
      ),
    },
    { requiredKeys: [] },
  ),
  60,
);
const cidr = fc.oneof(
  { weight: 20, arbitrary: fc.constant('10.0.0.0/26') },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '10.0.0.0/25',
      '10.0.0.64/26',
      'fd00::/122',
      '10.0.0.0/8',
      '10.0.0.1/26',
      'garbage',
      '',
    ),
  },
);
const FREE = 'free ordinals';
/** A block as a store may hold it: mostly well-formed, with damage in some fields. */
const blockJson = fc.record(
  {
    cidr: damaged(cidr, 60),
    affinity: damaged(fc.option(fc.constantFrom('host:h1', 'host:h2', 'virtual:v', 'garbage'))),
    affinity_claim_time: fc.oneof(
      { weight: 20, arbitrary: fc.constantFrom('2026-01-01T00:00:00Z', undefined) },
      { weight: 1, arbitrary: fc.constant('yesterday') },
    ),
    allocations: fc.oneof(
      {
        weight: 16,
        arbitrary: fc.array(fc.option(attributeIndex), { minLength: 64, maxLength: 64 }),
      },
      { weight: 2, arbitrary: fc.array(fc.option(attributeIndex), { maxLength: 70 }) },
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) },
    ),
    // Mostly the free ordinals (filled in below), else any list: often one the codec refuses.
    unallocated: fc.oneof(
      { weight: 16, arbitrary: fc.constant(FREE) },
      { weight: 1, arbitrary: fc.uniqueArray(fc.integer({ min: 0, max: 63 }), { maxLength: 64 }) },
      { weight: 1, arbitrary: fc.array(ordinal, { maxLength: 70 }) },
    ),
    // Mostly the four attributes the indexes point at; sometimes fewer, leaving some dangling.
    attributes: fc.oneof(
      { weight: 12, arbitrary: fc.array(attribute, { minLength: 4, maxLength: 5 }) },
      { weight: 1, arbitrary: fc.array(attribute, { maxLength: 3 }) },
    ),
    sequenceNumber: bigish,
    sequenceNumberForAllocation: fc.option(
      fc.dictionary(
        fc.oneof(
          { weight: 10, arbitrary: fc.integer({ min: 0, max: 70 }).map(String) },
          { weight: 1, arbitrary: fc.constantFrom('-1', 'x', '01', '1e3') },
        ),
        bigish,
        { maxKeys: 4 },
      ),
    ),
    deleted: damaged(fc.boolean()),
  },
  { requiredKeys: ['cidr', 'allocations', 'unallocated', 'attributes'] },
);
const blockText = blockJson
  .map((b) => {
    if (b.unallocated !== FREE) return b;
    const allocations: unknown = b.allocations;
    const free = Array.isArray(allocations)
      ? allocations.flatMap((a: unknown, o: number) => (a === null ? [o] : []))
      : [];
    return { ...b, unallocated: free };
  })
  .map((b) => stringifyJson(b as unknown as JsonValue));

/** Text as it comes back from a store: JSON of a kind, cut short, or anything at all. */
const storedText = fc.oneof(
  { weight: 3, arbitrary: blockText },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)) },
  { weight: 1, arbitrary: fc.tuple(blockText, fc.nat()).map(([t, n]) => t.slice(0, n % t.length)) },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '{"sequenceNumber":18446744073709551616}',
      '{"sequenceNumber":-1}',
      '{"block":{"10.0.0.0/26":-1}}',
      '{"block":{"10.0.0.0/26":1e400}}',
      '{"maxBlocksPerHost":-5}',
      '{"ipCooldownSeconds":1e21}',
      '{"metadata":{"name":"p"},"spec":{"cidr":5}}',
    ),
  },
);

describe('value codec fuzzing', () => {
  it(`decodeValue: any stored text under any key decodes or is CorruptValue (${RUNS} cases)`, () => {
    fc.assert(
      fc.property(fc.constantFrom(...KEYS), storedText, (key, text) => {
        let value: unknown;
        try {
          value = decodeValue(key, text);
        } catch (e) {
          expectClearError(e, ['CorruptValue']);
          expect(e.identifier).toBeDefined();
          return;
        }
        // What decodes encodes again (fields Calico's Go struct does not have are dropped, as Go
        // drops them), and that encoding is stable.
        const again = encodeValue(key.kind, value as never);
        expect(encodeValue(key.kind, decodeValue(key, again) as never)).toBe(again);
      }),
      { numRuns: RUNS },
    );
  });

  it(`an IPAM client on a store holding a damaged block answers or refuses cleanly (${CLIENT_RUNS} blocks, 6 calls each)`, async () => {
    let decoded = 0;
    await fc.assert(
      fc.asyncProperty(blockText, fc.integer({ min: 0, max: 63 }), async (text, ordinalNo) => {
        const key = { kind: 'IPAMBlock', cidr: '10.0.0.0/26' } as const;
        let block: AllocationBlock;
        try {
          block = decodeValue(key, text);
        } catch (e) {
          expectClearError(e, ['CorruptValue']);
          return;
        }
        decoded++;
        const ds = createMemoryDatastore();
        const ipam = createIpamClient({
          datastore: ds,
          clock: { now: () => Date.UTC(2026, 0, 2) },
        });
        await ipam.pools.create({ metadata: { name: 'p' }, spec: { cidr: '10.0.0.0/24' } });
        await ipam.nodes.create({ metadata: { name: 'h1' } });
        await ds.create({ key, value: block });
        await ds.create({
          key: { kind: 'BlockAffinity', host: 'h1', cidr: '10.0.0.0/26', affinityType: 'host' },
          value: { state: 'confirmed', deleted: false },
        });
        await ds.create({
          key: { kind: 'IPAMHandle', handleId: 'h1' },
          value: { handleId: 'h1', block: { '10.0.0.0/26': 1 }, deleted: false },
        });
        const ip = `10.0.0.${ordinalNo}`;
        try {
          findBlockProblems(block, { nowMs: Date.UTC(2026, 0, 2) });
        } catch (e) {
          expectClearError(e, ['CorruptValue', 'InvalidArgument']);
        }
        const calls: (() => Promise<unknown>)[] = [
          () => ipam.getAssignmentAttributes(ip),
          () => ipam.ipsByHandle('h1'),
          () => ipam.getUtilization(),
          () => ipam.releaseIps([{ address: ip }]),
          () => ipam.releaseByHandle('h1'),
          async () => {
            // What it hands out is recorded for the new handle, whatever the block held before.
            const { v4 } = await ipam.autoAssign({
              num4: 2,
              hostname: 'h1',
              handleId: 'new',
              intendedUse: 'Workload',
            });
            for (const got of v4.ips) {
              const address = got.split('/')[0]!;
              expect((await ipam.getAssignmentAttributes(address)).handleId).toBe('new');
            }
            expect((await ipam.ipsByHandle('new')).sort()).toEqual(
              v4.ips.map((c) => c.split('/')[0]!).sort(),
            );
          },
        ];
        for (const call of calls) {
          const before = await dump(ds);
          try {
            await call();
          } catch (e) {
            expectClearError(e, [
              'CorruptValue',
              'InvalidArgument',
              'DoesNotExist',
              'BadHandle',
              'NoQualifiedPool',
              'BlockLimit',
              'IpInCooldown',
            ]);
            expect(await dump(ds)).toBe(before);
          }
        }
      }),
      { numRuns: CLIENT_RUNS },
    );
    // Many damaged blocks still decode: the calls, not the codec, must cope with them.
    expect(decoded).toBeGreaterThan(CLIENT_RUNS / 3);
  }, 120_000);
});

const KINDS: readonly Kind[] = ['IPAMBlock', 'BlockAffinity', 'IPAMHandle', 'IPPool', 'Node'];
async function dump(ds: Datastore): Promise<string> {
  const lists = await Promise.all(KINDS.map((kind) => ds.list({ kind })));
  return JSON.stringify(lists, (_, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));
}
