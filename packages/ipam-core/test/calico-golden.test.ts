import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createIpamClient, createMemoryDatastore } from '../src/index.js';
import { decodeValue, encodeValue, pathToKey } from '../src/adapter.js';
import { newBlock } from '../src/block.js';
import type { Datastore, DatastoreKey, IpamClient, Kind } from '../src/index.js';

// The golden corpus (test/golden/README.md): the bytes Calico's Go code writes for each kind,
// written by Go's encoding/json (test/golden/gen; calico-golden-go.test.ts holds the committed
// files to it). (a) netledger decodes and re-encodes each of them to the same bytes; (b) what
// netledger creates itself encodes to the same bytes Go writes for the same content.

const GOLDEN = join(import.meta.dirname, 'golden');
const corpus = (
  JSON.parse(readFileSync(join(GOLDEN, 'corpus.json'), 'utf8')) as { file: string; key: string }[]
).map(({ file, key }) => ({
  file,
  path: key,
  key: pathToKey(key)!,
  bytes: readFileSync(join(GOLDEN, 'values', file), 'utf8'),
}));
const golden = (file: string): string => corpus.find((c) => c.file === file)!.bytes;

// Affinities stored before Calico had states: Calico reads them as `{}`, an empty state, which it
// treats as confirmed; netledger reads them as confirmed and never writes them back on a read.
const LEGACY_AFFINITIES = ['affinity-legacy-empty.txt', 'affinity-legacy-object.txt'];

describe('the golden corpus', () => {
  it('has a key netledger understands for every value', () => {
    expect(corpus.length).toBeGreaterThan(15);
    for (const c of corpus) expect(c.key, c.path).toBeDefined();
  });

  it.each(corpus.filter((c) => !LEGACY_AFFINITIES.includes(c.file)).map((c) => [c.file, c]))(
    '(a) %s decodes and re-encodes byte for byte',
    (_, c) => {
      const value = decodeValue(c.key, c.bytes);
      expect(encodeValue(c.key.kind, value)).toBe(c.bytes);
    },
  );

  it.each(LEGACY_AFFINITIES)('(a) the legacy affinity %s reads as confirmed', (file) => {
    const c = corpus.find((x) => x.file === file)!;
    expect(decodeValue(c.key, c.bytes)).toEqual({ state: 'confirmed', deleted: false });
  });

  it('(a) escapes <, >, & and quotes as Go does, and reads them back', () => {
    const pool = corpus.find((c) => c.file === 'ippool-calicoctl.txt')!;
    expect(pool.bytes).toContain(
      `"nodeSelector":"kubernetes.io/os == 'linux' \\u0026\\u0026 zone != \\"west\\""`,
    );
    const value = decodeValue(pool.key as DatastoreKey<'IPPool'>, pool.bytes);
    expect(value.spec.nodeSelector).toBe(`kubernetes.io/os == 'linux' && zone != "west"`);
  });

  it('(a) keeps legacy nulls, unknown keys and a nil attribute list as they were', () => {
    const legacy = decodeValue(
      corpus.find((c) => c.file === 'block-legacy.txt')!.key as DatastoreKey<'IPAMBlock'>,
      golden('block-legacy.txt'),
    );
    expect(legacy.attributes[1]).toMatchObject({ handleId: 'legacy-handle' });
    expect(legacy.sequenceNumberForAllocation).toEqual({});
    const keys = decodeValue(
      corpus.find((c) => c.file === 'block-legacy-keys.txt')!.key as DatastoreKey<'IPAMBlock'>,
      golden('block-legacy-keys.txt'),
    );
    expect(keys.storedJson?.unknownKeys).toEqual([
      { after: 'deleted', key: 'strictAffinity', value: false },
    ]);
  });
});

describe('(b) what netledger creates encodes to the bytes Go writes', () => {
  let datastore: Datastore;
  let client: IpamClient;
  const stored = async <K extends Kind>(path: string): Promise<string> => {
    const key = pathToKey(path)! as DatastoreKey<K>;
    return encodeValue(key.kind, (await datastore.get(key)).value);
  };

  beforeAll(async () => {
    datastore = createMemoryDatastore();
    // uid and creationTimestamp come through the client's ports: a fixed clock (.890 s is dropped,
    // as metav1.Time drops it) and a counter as the random source.
    let i = 0;
    client = createIpamClient({
      datastore,
      clock: { now: () => Date.UTC(2026, 2, 4, 5, 6, 7, 890) },
      random: { next: () => ((i++ * 37) % 256) / 256 },
    });
    // Fields in a different order from Go's and without the defaults: the encoder orders them,
    // the pool client adds the defaults calicoctl stores.
    await client.pools.create({
      // Label values are held to Kubernetes' syntax; annotations carry the characters Go escapes.
      metadata: {
        annotations: { note: 'net<&>ops' },
        labels: { zone: 'east', team: 'netops' },
        name: 'pool-a',
      },
      spec: { blockSize: 29, natOutgoing: true, cidr: '10.1.0.0/16' },
    });
    await client.reservations.create({
      metadata: { name: 'keep-out' },
      spec: { reservedCIDRs: ['10.1.0.48/30', '10.1.0.77', 'fd00:10::/126'] },
    });
    await client.nodes.create({ metadata: { name: 'n1' } });
    await client.nodes.create({
      status: { podCIDRs: ['10.244.2.0/24'] },
      spec: {
        addresses: [
          { type: 'CalicoNodeIP', address: '192.168.0.2/24' },
          { type: 'InternalIP', address: '192.168.0.2' },
        ],
        orchRefs: [{ orchestrator: 'k8s', nodeName: 'n2' }],
        bgp: { ipv4IPIPTunnelAddr: '10.1.0.1', ipv4Address: '192.168.0.2/24', asNumber: 64512 },
      },
      metadata: {
        name: 'n2',
        labels: { 'kubernetes.io/os': 'linux', 'kubernetes.io/hostname': 'n2' },
      },
    });
    await client.setIpamConfig({
      strictAffinity: true,
      autoAllocateBlocks: true,
      maxBlocksPerHost: 4,
      ipCooldownSeconds: 30,
      kubeVirtVMAddressPersistence: 'Enabled',
    });
  });

  it.each([
    ['ippool.txt', '/calico/resources/v3/projectcalico.org/ippools/pool-a'],
    ['ipreservation.txt', '/calico/resources/v3/projectcalico.org/ipreservations/keep-out'],
    ['node-empty.txt', '/calico/resources/v3/projectcalico.org/nodes/n1'],
    ['node.txt', '/calico/resources/v3/projectcalico.org/nodes/n2'],
    ['ipamconfig.txt', '/calico/ipam/v2/config'],
  ])('%s', async (file, path) => {
    expect(await stored(path)).toBe(golden(file));
  });

  it('block-no-affinity.txt: a new block, "affinity":null and "attributes":null', () => {
    const block = newBlock({ cidr: '10.1.0.24/29', sequenceNumber: 1772600767000000000n });
    expect(encodeValue('IPAMBlock', block)).toBe(golden('block-no-affinity.txt'));
  });

  it.each([
    ['affinity-confirmed.txt', 'confirmed'],
    ['affinity-pending.txt', 'pending'],
    ['affinity-pendingDeletion.txt', 'pendingDeletion'],
  ] as const)('%s', (file, state) => {
    expect(encodeValue('BlockAffinity', { state, deleted: false })).toBe(golden(file));
  });

  it('handle-legacy.txt: block keys in Go string order', () => {
    const handle = {
      handleId: 'legacy-handle',
      block: { '10.1.0.8/29': 1, '10.1.0.16/29': 1 },
      deleted: false,
    };
    expect(encodeValue('IPAMHandle', handle)).toBe(golden('handle-legacy.txt'));
  });
});
