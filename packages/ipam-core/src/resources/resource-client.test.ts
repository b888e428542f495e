import { beforeEach, describe, expect, it } from 'vitest';
import type { Datastore } from '../datastore/datastore.js';
import { createMemoryDatastore } from '../datastore/memory-datastore.js';
import type { IpamErrorCode } from '../errors.js';
import type { IPPool, IPReservation, Node } from '../model/resources.js';
import { createResourceClients } from './resource-client.js';
import type { ResourceClients } from './resource-client.js';

async function errorOf(p: Promise<unknown>): Promise<{ code?: IpamErrorCode; message?: string }> {
  try {
    await p;
  } catch (e) {
    return e as { code: IpamErrorCode; message: string };
  }
  return {};
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const pool = (name: string, cidr: string, spec: Partial<IPPool['spec']> = {}): IPPool => ({
  metadata: { name },
  spec: { cidr, ...spec },
});

let datastore: Datastore;
let clients: ResourceClients;
let released: string[];

beforeEach(() => {
  datastore = createMemoryDatastore();
  released = [];
  clients = createResourceClients({
    datastore,
    clock: { now: () => Date.UTC(2026, 0, 2) },
    releasePoolAffinities: async (cidr) => {
      released.push(cidr);
    },
  });
});

const poolCount = async (): Promise<number> =>
  (await datastore.list({ kind: 'IPPool' })).items.length;

describe('pools', () => {
  it('creates, stores with defaults and Allocatable=True, and reads with resourceVersion', async () => {
    const created = await clients.pools.create(pool('p1', '10.0.0.0/16'));
    expect(created).toMatchObject({
      metadata: { name: 'p1', uid: UUID, creationTimestamp: '2026-01-02T00:00:00Z' },
      spec: {
        cidr: '10.0.0.0/16',
        vxlanMode: 'Never',
        ipipMode: 'Never',
        blockSize: 26,
        nodeSelector: 'all()',
        allowedUses: ['Workload', 'Tunnel'],
        assignmentMode: 'Automatic',
      },
      status: {
        conditions: [
          { type: 'Allocatable', status: 'True', lastTransitionTime: '2026-01-02T00:00:00Z' },
        ],
      },
    });
    const stored = await datastore.get({ kind: 'IPPool', name: 'p1' });
    expect(created.metadata.resourceVersion).toBe(stored.revision);
    expect(stored.value.metadata.resourceVersion).toBeUndefined();
    expect(stored.value.spec.blockSize).toBe(26);
    expect(await clients.pools.get('p1')).toEqual(created);
  });

  it('applies defaults on read to pools written directly to the store', async () => {
    await datastore.create({
      key: { kind: 'IPPool', name: 'raw' },
      value: pool('raw', 'fd00::/64'),
    });
    const [read] = await clients.pools.list();
    expect(read).toMatchObject({
      spec: {
        cidr: 'fd00::/64',
        blockSize: 122,
        nodeSelector: 'all()',
        allowedUses: ['Workload', 'Tunnel'],
        assignmentMode: 'Automatic',
      },
    });
    expect(read!.metadata.resourceVersion).toMatch(/^\d+$/);
  });

  it('lists in name order', async () => {
    await clients.pools.create(pool('b', '10.1.0.0/24'));
    await clients.pools.create(pool('a', '10.0.0.0/24'));
    expect((await clients.pools.list()).map((p) => p.metadata.name)).toEqual(['a', 'b']);
  });

  it('refuses an overlapping pool with ConfigConflict and writes nothing', async () => {
    await clients.pools.create(pool('p1', '10.0.0.0/16'));
    const e = await errorOf(clients.pools.create(pool('p2', '10.0.1.0/24')));
    expect(e).toMatchObject({ code: 'ConfigConflict' });
    expect(e.message).toMatch(/IPPool\(p2\).*IPPool\(p1\)/);
    expect(await poolCount()).toBe(1);
  });

  it('allows a pool over a disabled one', async () => {
    await clients.pools.create(pool('old', '10.0.0.0/16', { disabled: true }));
    await clients.pools.create(pool('new', '10.0.0.0/16'));
    expect(await poolCount()).toBe(2);
  });

  it.each<[string, IPPool]>([
    ['a bad name', pool('Bad_Name', '10.0.0.0/24')],
    ['host bits', pool('p', '10.0.0.1/24')],
    ['a bad selector', pool('p', '10.0.0.0/24', { nodeSelector: 'x =' })],
  ])('refuses %s with InvalidArgument and writes nothing', async (_what, bad) => {
    expect(await errorOf(clients.pools.create(bad))).toMatchObject({ code: 'InvalidArgument' });
    expect(await poolCount()).toBe(0);
  });

  it('refuses a duplicate name with AlreadyExists', async () => {
    await clients.pools.create(pool('p1', '10.0.0.0/24'));
    expect(await errorOf(clients.pools.create(pool('p1', '10.0.0.0/24')))).toMatchObject({
      code: 'AlreadyExists',
    });
  });

  it('updates with CAS on resourceVersion, keeping status', async () => {
    const created = await clients.pools.create(pool('p1', '10.0.0.0/24'));
    const updated = await clients.pools.update({
      ...created,
      spec: { ...created.spec, nodeSelector: 'zone == "a"' },
    });
    expect(updated.spec.nodeSelector).toBe('zone == "a"');
    expect(updated.status).toEqual(created.status);
    expect(Number(updated.metadata.resourceVersion)).toBeGreaterThan(
      Number(created.metadata.resourceVersion),
    );

    const stale = { ...created, spec: { ...created.spec, disabled: true } };
    expect(await errorOf(clients.pools.update(stale))).toMatchObject({
      code: 'ConfigConflict',
      message: expect.stringContaining('resource modified since read') as string,
    });
    expect((await clients.pools.get('p1')).spec.disabled).toBeUndefined();
  });

  it('updates the latest version when no resourceVersion is given', async () => {
    await clients.pools.create(pool('p1', '10.0.0.0/24'));
    const out = await clients.pools.update(pool('p1', '10.0.0.0/24', { disabled: true }));
    expect(out.spec.disabled).toBe(true);
  });

  it.each<[string, IPPool, IpamErrorCode]>([
    ['a CIDR change', pool('p1', '10.0.1.0/24'), 'InvalidArgument'],
    ['a block size change', pool('p1', '10.0.0.0/24', { blockSize: 28 }), 'InvalidArgument'],
    [
      'an invalid spec',
      pool('p1', '10.0.0.0/24', { allowedUses: ['LoadBalancer', 'Workload'] }),
      'InvalidArgument',
    ],
    ['a missing pool', pool('nope', '10.0.0.0/24'), 'DoesNotExist'],
  ])('refuses %s on update and writes nothing', async (_what, next, code) => {
    const before = await clients.pools.create(pool('p1', '10.0.0.0/24'));
    expect(await errorOf(clients.pools.update(next))).toMatchObject({ code });
    expect(await clients.pools.get('p1')).toEqual(before);
  });

  it('checks overlap again when an update enables a disabled pool', async () => {
    await clients.pools.create(pool('old', '10.0.0.0/16', { disabled: true }));
    await clients.pools.create(pool('new', '10.0.0.0/16'));
    expect(
      await errorOf(clients.pools.update(pool('old', '10.0.0.0/16', { disabled: false }))),
    ).toMatchObject({
      code: 'ConfigConflict',
    });
    await clients.pools.update(pool('new', '10.0.0.0/16', { nodeSelector: 'a == "b"' }));
  });

  it('deletes by disabling, releasing affinities, then removing', async () => {
    await clients.pools.create(pool('p1', '10.0.0.0/24'));
    const deleted = await clients.pools.delete('p1');
    expect(deleted.spec.disabled).toBe(true);
    expect(released).toEqual(['10.0.0.0/24']);
    expect(await poolCount()).toBe(0);
    expect(await errorOf(clients.pools.get('p1'))).toMatchObject({ code: 'DoesNotExist' });
    expect(await errorOf(clients.pools.delete('p1'))).toMatchObject({ code: 'DoesNotExist' });
  });

  it('leaves the pool disabled when releasing affinities fails', async () => {
    const failing = createResourceClients({
      datastore,
      releasePoolAffinities: async () => {
        throw new Error('boom');
      },
    });
    await failing.pools.create(pool('p1', '10.0.0.0/24'));
    await expect(failing.pools.delete('p1')).rejects.toThrow('boom');
    expect((await failing.pools.get('p1')).spec.disabled).toBe(true);
  });
});

describe('nodes', () => {
  const node: Node = {
    metadata: { name: 'node-1', labels: { zone: 'a' } },
    spec: { bgp: { ipv4Address: '10.0.0.1/24' } },
  };

  it('creates, gets, lists, updates and deletes', async () => {
    const created = await clients.nodes.create(node);
    expect(created).toMatchObject(node);
    expect(await clients.nodes.list()).toEqual([created]);
    const updated = await clients.nodes.update({
      ...created,
      metadata: { ...created.metadata, labels: { zone: 'b' } },
    });
    expect(updated.metadata.labels).toEqual({ zone: 'b' });
    expect(await errorOf(clients.nodes.update(created))).toMatchObject({ code: 'ConfigConflict' });
    expect(await clients.nodes.delete('node-1')).toEqual(updated);
    expect(await clients.nodes.list()).toEqual([]);
  });

  it.each(['Node1', 'node_1', '-node', 'a'.repeat(254), ''])(
    'refuses the name %j',
    async (name) => {
      expect(await errorOf(clients.nodes.create({ metadata: { name } }))).toMatchObject({
        code: 'InvalidArgument',
      });
      expect((await datastore.list({ kind: 'Node' })).items).toHaveLength(0);
    },
  );
});

describe('creation metadata (uid, creationTimestamp) as Calico clientv3 sets it', () => {
  // A clock and a counter-based random source: every byte of the UUID is determined.
  const seeded = (): ResourceClients => {
    let i = 0;
    return createResourceClients({
      datastore,
      clock: { now: () => Date.UTC(2026, 2, 4, 5, 6, 7, 890) },
      random: { next: () => ((i++ * 37) % 256) / 256 },
    });
  };

  it.each([
    ['pools', (c: ResourceClients) => c.pools.create(pool('p9', '10.9.0.0/16'))],
    ['nodes', (c: ResourceClients) => c.nodes.create({ metadata: { name: 'n9' } })],
    [
      'reservations',
      (c: ResourceClients) =>
        c.reservations.create({ metadata: { name: 'r9' }, spec: { reservedCIDRs: [] } }),
    ],
  ] as const)(
    '%s get a v4 UUID from Random and a timestamp in seconds from Clock',
    async (_, make) => {
      const created = await make(seeded());
      expect(created.metadata).toMatchObject({
        uid: '00254a6f-94b9-4e03-a84d-7297bce1062b',
        creationTimestamp: '2026-03-04T05:06:07Z',
      });
      expect(created.metadata.uid).toMatch(UUID);
    },
  );

  it('keeps a uid and creationTimestamp the caller set', async () => {
    const metadata = { name: 'n8', uid: 'given', creationTimestamp: '2020-01-01T00:00:00Z' };
    expect((await seeded().nodes.create({ metadata })).metadata).toMatchObject(metadata);
  });

  it('keeps the stored uid and creationTimestamp on update, whatever the caller sends', async () => {
    const c = seeded();
    const created = await c.pools.create(pool('p7', '10.7.0.0/16'));
    const updated = await c.pools.update({
      metadata: { name: 'p7', uid: 'other', creationTimestamp: '2030-01-01T00:00:00Z' },
      spec: { cidr: '10.7.0.0/16', natOutgoing: true },
    });
    expect(updated.metadata.uid).toBe(created.metadata.uid);
    expect(updated.metadata.creationTimestamp).toBe(created.metadata.creationTimestamp);
    expect(updated.spec).toMatchObject({
      natOutgoing: true,
      ipipMode: 'Never',
      vxlanMode: 'Never',
    });
  });

  it('gives a stored resource without them a uid and creationTimestamp on its next update', async () => {
    await datastore.create({
      key: { kind: 'Node', name: 'old' },
      value: { metadata: { name: 'old' } },
    });
    const updated = await seeded().nodes.update({ metadata: { name: 'old', labels: { a: 'b' } } });
    expect(updated.metadata).toMatchObject({
      uid: UUID,
      creationTimestamp: '2026-03-04T05:06:07Z',
    });
  });

  it('stores a Node with spec and status, {} when empty, as Go always writes them', async () => {
    await seeded().nodes.create({ metadata: { name: 'bare' } });
    const stored = await datastore.get({ kind: 'Node', name: 'bare' });
    expect(stored.value).toMatchObject({ spec: {}, status: {} });
  });
});

describe('reservations', () => {
  const reservation = (reservedCIDRs: string[], name = 'r1'): IPReservation => ({
    metadata: { name },
    spec: { reservedCIDRs },
  });

  it('stores CIDRs and bare addresses of both families', async () => {
    const r = reservation(['10.0.0.0/24', '10.1.0.5', 'fd00::/120', 'fd00::1']);
    expect(await clients.reservations.create(r)).toMatchObject(r);
    expect(await clients.reservations.get('r1')).toMatchObject(r);
  });

  it.each([
    ['10.0.0.1/24', 0],
    ['not-a-cidr', 0],
    [' 10.0.0.0/24', 0],
    ['10.0.0.0/33', 0],
    ['', 0],
  ])('refuses the entry %j, naming it, and writes nothing', async (entry) => {
    const e = await errorOf(clients.reservations.create(reservation(['10.9.0.0/24', entry])));
    expect(e.code).toBe('InvalidArgument');
    expect(e.message).toContain(`reservedCIDRs[1] ${JSON.stringify(entry)}`);
    expect((await datastore.list({ kind: 'IPReservation' })).items).toHaveLength(0);
  });

  it('validates updates too', async () => {
    await clients.reservations.create(reservation(['10.0.0.0/24']));
    expect(await errorOf(clients.reservations.update(reservation(['10.0.0.300'])))).toMatchObject({
      code: 'InvalidArgument',
    });
    expect((await clients.reservations.get('r1')).spec.reservedCIDRs).toEqual(['10.0.0.0/24']);
  });
});

describe('concurrent writes', () => {
  it('retries an update without resourceVersion after losing a CAS race', async () => {
    const inner = createMemoryDatastore();
    let interfere = true;
    const racy: Datastore = {
      ...inner,
      async update(kv) {
        if (interfere && kv.key.kind === 'Node') {
          interfere = false;
          const current = await inner.get({ kind: 'Node', name: 'n1' });
          await inner.update({
            ...current,
            value: { metadata: { name: 'n1', labels: { by: 'other' } } },
          });
        }
        return inner.update(kv);
      },
    };
    const c = createResourceClients({ datastore: racy });
    await c.nodes.create({ metadata: { name: 'n1' } });
    const out = await c.nodes.update({ metadata: { name: 'n1', labels: { by: 'me' } } });
    expect(out.metadata.labels).toEqual({ by: 'me' });
    expect(interfere).toBe(false);
  });

  it('surfaces a lost race as ConfigConflict when a resourceVersion was given', async () => {
    const inner = createMemoryDatastore();
    const c0 = createResourceClients({ datastore: inner });
    const created = await c0.nodes.create({ metadata: { name: 'n1' } });
    const racy: Datastore = {
      ...inner,
      async update(kv) {
        const current = await inner.get({ kind: 'Node', name: 'n1' });
        await inner.update({ ...current, value: current.value });
        return inner.update(kv);
      },
    };
    const c = createResourceClients({ datastore: racy });
    expect(
      await errorOf(
        c.nodes.update({ ...created, metadata: { ...created.metadata, labels: { a: 'b' } } }),
      ),
    ).toMatchObject({
      code: 'ConfigConflict',
    });
  });
});

describe("Kubernetes' limits on metadata and size (issue 26, item 8)", () => {
  const fiftyMb = 'x'.repeat(50 * 1024 * 1024);

  it.each([
    [
      'pools',
      () =>
        clients.pools.create({
          ...pool('big', '10.9.0.0/16'),
          metadata: { name: 'big', annotations: { blob: fiftyMb } },
        }),
    ],
    [
      'nodes',
      () => clients.nodes.create({ metadata: { name: 'big', annotations: { blob: fiftyMb } } }),
    ],
    [
      'reservations',
      () =>
        clients.reservations.create({
          metadata: { name: 'big', annotations: { blob: fiftyMb } },
          spec: { reservedCIDRs: ['10.9.0.1'] },
        }),
    ],
  ])(
    '%s: create refuses a 50 MB annotation, naming the object and the limit, writing nothing',
    async (_, create) => {
      const e = await errorOf(create());
      expect(e).toMatchObject({ code: 'InvalidArgument', identifier: 'big' });
      expect(e.message).toMatch(
        /^invalid (IPPool|Node|IPReservation) "big": metadata\.annotations total 52428804 bytes/,
      );
      expect(e.message).toContain("over Kubernetes' limit of 262144 bytes (256 KiB)");
      const stored = await datastore.listMany!([
        { kind: 'IPPool' },
        { kind: 'Node' },
        { kind: 'IPReservation' },
      ]);
      expect(stored.flatMap((l) => l.items)).toEqual([]);
    },
  );

  it('update refuses bad labels and oversized annotations and leaves the stored object as it was', async () => {
    const created = await clients.nodes.create({ metadata: { name: 'n1', labels: { zone: 'a' } } });
    const { resourceVersion: _rv, ...metadata } = created.metadata;
    const bad = await errorOf(
      clients.nodes.update({
        ...created,
        metadata: { ...metadata, labels: { 'a/b/c': 'x', zone: 'has space' } },
      }),
    );
    expect(bad).toMatchObject({ code: 'InvalidArgument', identifier: 'n1' });
    expect(bad.message).toContain('metadata.labels key "a/b/c"');
    expect(bad.message).toContain('metadata.labels["zone"] value "has space"');
    const big = await errorOf(
      clients.nodes.update({
        ...created,
        metadata: { ...metadata, annotations: { a: 'x'.repeat(256 * 1024) } },
      }),
    );
    expect(big).toMatchObject({ code: 'InvalidArgument' });
    expect((await clients.nodes.get('n1')).metadata).toEqual(created.metadata);
  });

  it('refuses, at the store, an object whose encoded size is over 1.5 MiB', async () => {
    // 120,000 addresses, about 1.7 MB of JSON, with small metadata.
    const reservedCIDRs = Array.from(
      { length: 120_000 },
      (_, i) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
    );
    const e = await errorOf(
      clients.reservations.create({ metadata: { name: 'huge' }, spec: { reservedCIDRs } }),
    );
    expect(e).toMatchObject({
      code: 'InvalidArgument',
      identifier: '/calico/resources/v3/projectcalico.org/ipreservations/huge',
    });
    expect(e.message).toContain('over the limit of 1572864 bytes (1.5 MiB');
    expect((await datastore.list({ kind: 'IPReservation' })).items).toEqual([]);
  });
});
