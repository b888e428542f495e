// Fuzzing the conversion layer (issue #20): Calico objects as the API server may answer them, with
// schema-invalid fields (wrong types, missing fields, sequence numbers past int64 and uint64,
// negative ordinals, allocations pointing at missing attributes). Each decodes to a KVPair or is
// refused with CorruptValue naming the API server and the object; the object read is never
// changed. Pure: no API server is needed.
import type { DatastoreKey, Kind } from '@netledger/ipam-core';
import { IpamError } from '@netledger/ipam-core';
import type { JsonValue } from '@netledger/ipam-core/adapter';
import { BlockBuilder } from '@netledger/testkit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CrdGroup } from './calico-api-group.js';
import { CALICO_API_GROUPS, crdGroup } from './calico-api-group.js';
import type { CrdKind } from './crd-kinds.js';
import { encodeCrd } from './crd-kinds.js';
import type { JsonObject } from './ipam-crd-codec.js';
import { decodeKubeObject } from './kube-object-kv.js';

const RUNS = 10_000;
const SERVER = 'https://127.0.0.1:6443';
const ENGINE_ERROR =
  /Cannot read properties|is not a function|is not iterable|is not defined|Cannot convert|Invalid array length|Maximum call stack|Cannot mix BigInt|Invalid time value/;

const withMeta = (o: JsonObject): JsonObject => ({
  ...o,
  metadata: { ...(o.metadata as JsonObject), resourceVersion: '42', uid: 'u-1' },
});

/** One valid object per kind in `group`, as netledger (and Calico's KDD) writes it. */
function validIn(group: CrdGroup): { kind: Kind; object: JsonObject; resource: string }[] {
  const ipam = [
    encodeCrd(
      group,
      { kind: 'IPAMBlock', cidr: '10.0.0.0/30' },
      new BlockBuilder('10.0.0.0/30').affine('n1').allocate([0, 2], 'h', { pod: 'p' }).build(),
    ),
    encodeCrd(
      group,
      { kind: 'BlockAffinity', host: 'n1', cidr: '10.0.0.0/30', affinityType: 'host' },
      { state: 'confirmed', deleted: false },
    ),
    encodeCrd(
      group,
      { kind: 'IPAMHandle', handleId: 'k8s-pod-network.Abc' },
      { handleId: 'k8s-pod-network.Abc', block: { '10.0.0.0/30': 2 }, deleted: false },
    ),
    encodeCrd(
      group,
      { kind: 'IPAMConfig' },
      {
        strictAffinity: false,
        autoAllocateBlocks: true,
        maxBlocksPerHost: 4,
        ipCooldownSeconds: 30,
      },
    ),
  ];
  const kinds: CrdKind[] = ['IPAMBlock', 'BlockAffinity', 'IPAMHandle', 'IPAMConfig'];
  const all: { kind: CrdKind; object: JsonObject }[] = [
    ...ipam.map((object, i) => ({ kind: kinds[i]!, object })),
    {
      kind: 'IPPool',
      object: {
        apiVersion: group.apiVersion,
        kind: 'IPPool',
        metadata: { name: 'p' },
        spec: { cidr: '10.0.0.0/24', blockSize: 26, nodeSelector: 'all()', ipipMode: 'Never' },
      },
    },
    {
      kind: 'IPReservation',
      object: {
        apiVersion: group.apiVersion,
        kind: 'IPReservation',
        metadata: { name: 'r' },
        spec: { reservedCIDRs: ['10.0.0.0/30'] },
      },
    },
  ];
  return all.map(({ kind, object }) => ({ kind, object, resource: group.names[kind].plural }));
}

/** The valid objects of both Calico API groups, and a Node. */
const VALID: readonly { kind: Kind; object: JsonObject; resource: string }[] = [
  ...CALICO_API_GROUPS.flatMap((g) => validIn(crdGroup(g))),
  {
    kind: 'Node' as const,
    resource: 'nodes',
    object: {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name: 'n1',
        labels: { 'kubernetes.io/os': 'linux' },
        annotations: {
          'projectcalico.org/IPv4Address': '192.168.1.1/24',
          'projectcalico.org/ASNumber': '64512',
          'projectcalico.org/labels': '{"rack":"a"}',
        },
      },
      spec: { podCIDRs: ['10.244.0.0/24'] },
    },
  },
].map((v) => ({ ...v, object: withMeta(v.object) }));

/** Every path into a JSON value: objects' keys and arrays' indexes. */
function pathsOf(v: JsonValue, at: (string | number)[] = []): (string | number)[][] {
  const out: (string | number)[][] = [at];
  if (Array.isArray(v)) v.forEach((x, i) => out.push(...pathsOf(x, [...at, i])));
  else if (typeof v === 'object' && v !== null)
    for (const [k, x] of Object.entries(v)) out.push(...pathsOf(x, [...at, k]));
  return out;
}

const REMOVE = Symbol('remove');
/** A copy of `v` with the value at `path` replaced (or removed). */
function replaceAt(
  v: JsonValue,
  path: readonly (string | number)[],
  by: JsonValue | typeof REMOVE,
): JsonValue {
  if (path.length === 0) return by === REMOVE ? {} : by;
  const [head, ...rest] = path;
  if (Array.isArray(v)) {
    const copy = [...v];
    if (rest.length === 0 && by === REMOVE) copy.splice(head as number, 1);
    else copy[head as number] = replaceAt(copy[head as number]!, rest, by);
    return copy;
  }
  const copy = { ...(v as JsonObject) };
  if (rest.length === 0 && by === REMOVE) delete copy[head as string];
  else copy[head as string] = replaceAt(copy[head as string]!, rest, by);
  return copy;
}

/** What a schema-invalid field holds instead. */
const badValue: fc.Arbitrary<JsonValue | typeof REMOVE> = fc.oneof(
  fc.constant(REMOVE),
  fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<JsonValue>,
  fc.constantFrom<JsonValue>(
    2n ** 63n,
    2n ** 64n,
    2n ** 64n + 1n,
    -1n,
    -1,
    -64,
    64,
    1e21,
    99,
    '',
    'garbage',
    '10.0.0.0/8',
    '10.0.0.1/30',
    null,
    [],
    {},
    [-1],
    [0, 0],
    { '-1': 1 },
  ),
);

/** A valid object of some kind with one to three fields made schema-invalid. */
const damagedObject = fc
  .tuple(
    fc.constantFrom(...VALID),
    fc.array(fc.tuple(fc.nat(), badValue), { minLength: 1, maxLength: 3 }),
  )
  .map(([{ kind, object, resource }, edits]) => {
    let damaged: JsonValue = object;
    for (const [pick, by] of edits) {
      const paths = pathsOf(damaged);
      damaged = replaceAt(damaged, paths[pick % paths.length]!, by);
    }
    return { kind, object: damaged, resource };
  });

const snapshot = (v: unknown): string =>
  JSON.stringify(v, (_, x: unknown) => (typeof x === 'bigint' ? `${x}n` : x));

describe('Kubernetes objects read back (fuzzing the conversion layer)', () => {
  it.each(VALID)('the valid $kind ($object.apiVersion) decodes', ({ kind, object, resource }) => {
    expect(decodeKubeObject({ server: SERVER, kind, object, resource })).toMatchObject({
      revision: '42',
      uid: 'u-1',
    });
  });

  // Found by the property below: a bigint `type` or `deleted` threw JSON.stringify's TypeError, and
  // an object named "" was reported as `ippools/`.
  it.each([
    [
      'a bigint affinity type',
      'BlockAffinity',
      ['spec', 'type'],
      2n ** 63n,
      'spec.type 9223372036854775808 is not host or virtual',
    ],
    [
      'a bigint affinity deleted',
      'BlockAffinity',
      ['spec', 'deleted'],
      2n ** 64n,
      'spec.deleted 18446744073709551616 is not a boolean',
    ],
    [
      'an empty name',
      'IPPool',
      ['metadata', 'name'],
      '',
      'ippools/(no name) is not a valid Calico object: metadata.name is missing',
    ],
    [
      'a sequence number past uint64',
      'IPAMBlock',
      ['spec', 'sequenceNumber'],
      2n ** 64n,
      'sequenceNumber',
    ],
    [
      'a negative ordinal',
      'IPAMBlock',
      ['spec', 'unallocated'],
      [-1],
      'unallocated[0] is ordinal -1',
    ],
    [
      'an allocation pointing at a missing attribute',
      'IPAMBlock',
      ['spec', 'allocations'],
      [5, null, null, null],
      'allocations[0] points at attribute 5',
    ],
  ] as const)('refuses %s with CorruptValue naming the object', (_, kind, path, by, says) => {
    const valid = VALID.find((v) => v.kind === kind)!;
    const object = replaceAt(valid.object, path, by as JsonValue) as JsonObject;
    expect(() =>
      decodeKubeObject({ server: SERVER, kind, object, resource: valid.resource }),
    ).toThrow(
      expect.objectContaining({ code: 'CorruptValue', message: expect.stringContaining(says) }),
    );
  });

  it(`any schema-invalid object decodes or is CorruptValue naming the object (${RUNS} cases)`, () => {
    let refused = 0;
    let decoded = 0;
    fc.assert(
      fc.property(damagedObject, ({ kind, object, resource }) => {
        if (typeof object !== 'object' || object === null || Array.isArray(object)) return;
        const before = snapshot(object);
        try {
          const kv = decodeKubeObject({ server: SERVER, kind, object, resource });
          if (kv) {
            expect((kv.key as DatastoreKey).kind).toBe(kind);
            decoded++;
          }
        } catch (e) {
          if (!(e instanceof IpamError)) throw e;
          expect(e.code).toBe('CorruptValue');
          expect(e.message).toContain(`kube-apiserver at ${SERVER}: `);
          expect(e.message).toContain(`${e.identifier} is not a valid Calico object: `);
          expect(e.identifier).toMatch(/^[a-z]+\/.+$/);
          expect(e.message).not.toMatch(ENGINE_ERROR);
          refused++;
        }
        expect(snapshot(object)).toBe(before);
      }),
      { numRuns: RUNS },
    );
    expect(refused).toBeGreaterThan(RUNS / 10);
    expect(decoded).toBeGreaterThan(RUNS / 10);
  });
});
