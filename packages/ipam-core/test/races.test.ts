import { cidrContainsIp, parseCidr, parseIp } from '@netledger/accounting';
import { describe, expect, it } from 'vitest';
import { newBlock } from '../src/block/new-block.js';
import {
  affinityKey,
  blockKey,
  claimAffineBlock,
  getPendingAffinity,
  releaseBlockAffinity,
} from '../src/client/block-reader-writer.js';
import { IpamError } from '../src/errors.js';
import { createTestCluster } from './test-cluster.js';

const host = (h: string) => ({ affinityType: 'host' as const, host: h });
const addressOf = (ipWithMask: string) => ipWithMask.split('/')[0]!;
const inBlock = (ip: string, cidr: string) =>
  cidrContainsIp(parseCidr(cidr), parseIp(addressOf(ip)));
const STRICT_MSG = 'No more free affine blocks and strict affinity enabled';

describe('concurrent clients over one store (ipam_block_reader_writer_test.go)', () => {
  // §5.2 item 39: one client per host, so the in-process per-host queue hides nothing.
  it('32 hosts, 16 blocks: every host served, 16 confirmed affinities matching their blocks', async () => {
    const hosts = Array.from({ length: 32 }, (_, i) => `host-${i}`);
    const c = await createTestCluster({ pools: [{ cidr: '10.0.0.0/22', blockSize: 26 }], hosts });
    const results = await Promise.all(
      hosts.map((h) =>
        c.client().autoAssign({ num4: 1, hostname: h, handleId: h, intendedUse: 'Workload' }),
      ),
    );
    const ips = results.map((r) => r.v4.ips);
    for (const got of ips) expect(got).toHaveLength(1);
    expect(new Set(ips.flat().map(addressOf)).size).toBe(32);

    const affinities = await c.affinities();
    expect(affinities).toHaveLength(16);
    const blocks = new Map((await c.blocks()).map((b) => [b.cidr, b]));
    for (const a of affinities) {
      expect(a.state).toBe('confirmed');
      expect(blocks.get(a.cidr)?.affinity).toBe(`host:${a.host}`);
      expect(inBlock(ips[hosts.indexOf(a.host)]![0]!, a.cidr)).toBe(true);
    }
    expect(new Set(affinities.map((a) => a.host)).size).toBe(16);
    expect(await c.invariantProblems()).toEqual([]);
    for (const h of hosts)
      expect(await c.store.get({ kind: 'IPAMHandle', handleId: h })).toBeDefined();
  });

  // §5.2 item 40 (Calico calls its version flaky; ours is deterministic over the memory store).
  it('4 concurrent requests from one host through 4 clients share one block', async () => {
    const c = await createTestCluster({
      pools: [{ cidr: '10.0.0.0/25', blockSize: 26 }],
      hosts: ['h'],
    });
    const results = await Promise.all(
      [0, 1, 2, 3].map((i) =>
        c
          .client()
          .autoAssign({ num4: 1, hostname: 'h', handleId: `h-${i}`, intendedUse: 'Workload' }),
      ),
    );
    const ips = results.flatMap((r) => r.v4.ips);
    expect(new Set(ips).size).toBe(4);
    const affinities = await c.affinities();
    expect(affinities).toHaveLength(1);
    expect(affinities[0]).toMatchObject({ host: 'h', state: 'confirmed' });
    for (const ip of ips) expect(inBlock(ip, affinities[0]!.cidr)).toBe(true);
    expect(await c.invariantProblems()).toEqual([]);
  });

  // §5.2 item 41.
  it('4 concurrent claimAffinity(/22) for one host each claim all 16; 4 concurrent releases succeed', async () => {
    const c = await createTestCluster({
      pools: [{ cidr: '10.0.0.0/22', blockSize: 26 }],
      hosts: ['h'],
    });
    const clients = [0, 1, 2, 3].map(() => c.client());
    const claims = await Promise.all(
      clients.map((cl) => cl.claimAffinity('10.0.0.0/22', host('h'))),
    );
    for (const r of claims) {
      expect(r.claimed).toHaveLength(16);
      expect(r.failed).toEqual([]);
    }
    const affinities = await c.affinities();
    expect(affinities).toHaveLength(16);
    expect(affinities.every((a) => a.state === 'confirmed' && a.host === 'h')).toBe(true);
    expect((await c.blocks()).every((b) => b.affinity === 'host:h')).toBe(true);

    await Promise.all(
      clients.map((cl) => cl.releaseAffinity('10.0.0.0/22', 'h', { mustBeEmpty: true })),
    );
    expect(await c.affinities()).toEqual([]);
    expect(await c.blocks()).toEqual([]);
  });

  it('hosts racing for the last free block: one wins it, the other borrows', async () => {
    const c = await createTestCluster({
      pools: [{ cidr: '10.0.0.0/26', blockSize: 26 }],
      hosts: ['a', 'b'],
    });
    const [ra, rb] = await Promise.all(
      ['a', 'b'].map((h) =>
        c.client().autoAssign({ num4: 2, hostname: h, handleId: h, intendedUse: 'Workload' }),
      ),
    );
    expect([...ra!.v4.ips, ...rb!.v4.ips]).toHaveLength(4);
    expect(new Set([...ra!.v4.ips, ...rb!.v4.ips]).size).toBe(4);
    const affinities = await c.affinities();
    expect(affinities).toHaveLength(1);
    expect(affinities[0]!.state).toBe('confirmed');
    expect(await c.invariantProblems()).toEqual([]);
  });
});

describe('injected interleavings', () => {
  // §5.2 item 47: an allocation lands between reading the (empty) block and deleting it.
  it.each([false, true])(
    'an allocation right before the pendingDeletion write of a release (mustBeEmpty %s): the block survives',
    async (mustBeEmpty) => {
      const c = await createTestCluster({
        pools: [{ cidr: '10.0.0.0/26', blockSize: 26 }],
        hosts: ['a'],
      });
      const a = c.client();
      const { v4 } = await a.autoAssign({
        num4: 1,
        hostname: 'a',
        handleId: 'first',
        intendedUse: 'Workload',
      });
      await a.releaseIps([{ address: addressOf(v4.ips[0]!) }]);
      let injected = false;
      c.ds.hook({
        when: 'before',
        op: 'update',
        kind: 'BlockAffinity',
        match: (call) => (call.value as { state: string }).state === 'pendingDeletion',
        run: async () => {
          await c.direct().assignIp({ ip: '10.0.0.10', hostname: 'a', handleId: 'intruder' });
          injected = true;
        },
      });
      const release = a.releaseAffinity('10.0.0.0/26', 'a', { mustBeEmpty });
      if (mustBeEmpty) await expect(release).rejects.toMatchObject({ code: 'BlockNotEmpty' });
      else await release;
      expect(injected).toBe(true);

      const block = (await c.store.get(blockKey('10.0.0.0/26'))).value;
      expect(await a.ipsByHandle('intruder')).toEqual(['10.0.0.10']);
      expect(await c.invariantProblems()).toEqual([]);
      if (!mustBeEmpty) {
        expect(block.affinity).toBeUndefined();
        expect(await c.affinities()).toEqual([]);
        return;
      }
      // The affinity is left pending deletion; the host's next allocation re-confirms it.
      expect(block.affinity).toBe('host:a');
      expect(await c.affinities()).toEqual([
        { host: 'a', type: 'host', cidr: '10.0.0.0/26', state: 'pendingDeletion' },
      ]);
      const again = await a.autoAssign({ num4: 1, hostname: 'a', intendedUse: 'Workload' });
      expect(inBlock(again.v4.ips[0]!, '10.0.0.0/26')).toBe(true);
      expect((await c.affinities())[0]!.state).toBe('confirmed');
    },
  );

  // A claim race: another host takes the subnet between our affinity create and our block create.
  it.each([
    ['after our affinity is created', 'after', 'create', 'BlockAffinity'],
    ['right before our block create', 'before', 'create', 'IPAMBlock'],
  ] as const)(
    'another host claims the block %s: we move on to another block',
    async (_, when, op, kind) => {
      const c = await createTestCluster({
        pools: [{ cidr: '10.0.0.0/25', blockSize: 26 }],
        hosts: ['a', 'b'],
      });
      let stolen: string | undefined;
      c.ds.hook({
        when,
        op,
        kind,
        match: (call) =>
          kind === 'IPAMBlock'
            ? (call.value as { affinity?: string }).affinity === 'host:a'
            : (call.key as { host: string }).host === 'a',
        run: async (call) => {
          stolen = (call.key as { cidr: string }).cidr;
          const r = await c.direct().claimAffinity(stolen, host('b'));
          expect(r.claimed).toEqual([stolen]);
        },
      });
      const { v4 } = await c
        .client()
        .autoAssign({ num4: 1, hostname: 'a', handleId: 'a', intendedUse: 'Workload' });
      expect(stolen).toBeDefined();
      expect(v4.ips).toHaveLength(1);
      expect(inBlock(v4.ips[0]!, stolen!)).toBe(false);

      const affinities = await c.affinities();
      expect(affinities).toHaveLength(2);
      const blocks = new Map((await c.blocks()).map((b) => [b.cidr, b]));
      for (const a of affinities) {
        expect(a.state).toBe('confirmed');
        expect(blocks.get(a.cidr)?.affinity).toBe(`host:${a.host}`);
      }
      expect(affinities.find((a) => a.cidr === stolen)?.host).toBe('b');
      const own = affinities.find((a) => a.host === 'a')!;
      expect(inBlock(v4.ips[0]!, own.cidr)).toBe(true);
    },
  );

  // §5.2 item 42, at the block reader/writer level.
  it('a release marking the affinity pendingDeletion during the block create: the claim conflicts', async () => {
    const c = await createTestCluster({
      pools: [{ cidr: '10.0.0.0/26', blockSize: 26 }],
      hosts: ['a'],
    });
    const ctx = c.context();
    const pending = await getPendingAffinity(ctx, host('a'), '10.0.0.0/26');
    c.ds.hook({
      when: 'before',
      op: 'create',
      kind: 'IPAMBlock',
      run: async ({ inner }) => {
        const aff = await inner.get(affinityKey(host('a'), '10.0.0.0/26'));
        await inner.update({ ...aff, value: { ...aff.value, state: 'pendingDeletion' } });
      },
    });
    await expect(
      claimAffineBlock(ctx, pending, { owner: host('a'), cooldownSeconds: 0 }),
    ).rejects.toMatchObject({ code: 'UpdateConflict' });
    expect((await c.affinities())[0]!.state).toBe('pendingDeletion');
    // Re-claiming through the client (idempotent) confirms it again.
    expect(await c.client().claimAffinity('10.0.0.0/26', host('a'))).toEqual({
      claimed: ['10.0.0.0/26'],
      failed: [],
    });
    expect((await c.affinities())[0]!.state).toBe('confirmed');
  });

  // §5.2 item 43.
  it('a claim re-creating the block during the release: the release conflicts', async () => {
    const c = await createTestCluster({
      pools: [{ cidr: '10.0.0.0/26', blockSize: 26 }],
      hosts: ['a'],
    });
    await c.direct().claimAffinity('10.0.0.0/26', host('a'));
    c.ds.hook({
      when: 'before',
      op: 'delete',
      kind: 'IPAMBlock',
      run: async ({ inner }) => {
        await inner.delete(blockKey('10.0.0.0/26'));
        await inner.create({
          key: blockKey('10.0.0.0/26'),
          value: newBlock({ cidr: '10.0.0.0/26', sequenceNumber: 5n, affinity: 'host:a' }),
        });
        const aff = await inner.get(affinityKey(host('a'), '10.0.0.0/26'));
        await inner.update({ ...aff, value: { ...aff.value, state: 'pending' } });
      },
    });
    await expect(
      releaseBlockAffinity(c.context(), host('a'), {
        cidr: '10.0.0.0/26',
        requireEmpty: false,
        cooldownSeconds: 0,
      }),
    ).rejects.toMatchObject({ code: 'UpdateConflict' });
    expect((await c.blocks()).map((b) => b.affinity)).toEqual(['host:a']);
  });

  // §5.2 item 45.
  it('an empty block of another host is reclaimed only after a minute (strict affinity)', async () => {
    const c = await createTestCluster({
      pools: [{ cidr: '10.0.0.0/26', blockSize: 26 }],
      hosts: ['a', 'b'],
      strict: true,
    });
    const a = c.client();
    const b = c.client();
    const ask = (cl: typeof a, h: string) =>
      cl.autoAssign({ num4: 1, hostname: h, handleId: h, intendedUse: 'Workload' });

    const got = await ask(a, 'a');
    expect(got.v4.ips).toHaveLength(1);
    expect((await ask(b, 'b')).v4).toMatchObject({ ips: [], msgs: [STRICT_MSG] });

    await a.releaseIps([{ address: addressOf(got.v4.ips[0]!) }]);
    expect((await ask(b, 'b')).v4.ips).toEqual([]);
    c.clock.advance(59_000);
    expect((await ask(b, 'b')).v4.ips).toEqual([]);
    c.clock.advance(999);
    expect((await ask(b, 'b')).v4.ips).toEqual([]);
    c.clock.advance(1_001); // 61 s after the claim
    expect((await ask(b, 'b')).v4.ips).toHaveLength(1);

    expect(await c.affinities()).toEqual([
      { host: 'b', type: 'host', cidr: '10.0.0.0/26', state: 'confirmed' },
    ]);
    const [block] = await c.blocks();
    expect(block).toMatchObject({ affinity: 'host:b', affinityClaimTime: '2026-03-01T00:01:01Z' });
    expect(await c.invariantProblems()).toEqual([]);
  });

  // §5.2 item 46.
  it('a failed block delete during a reclaim gives 0 addresses, no error; the next try succeeds', async () => {
    const c = await createTestCluster({
      pools: [{ cidr: '10.0.0.0/26', blockSize: 26 }],
      hosts: ['a', 'b'],
      strict: true,
    });
    const a = c.client();
    const got = await a.autoAssign({ num4: 1, hostname: 'a', intendedUse: 'Workload' });
    await a.releaseIps([{ address: addressOf(got.v4.ips[0]!) }]);
    c.clock.advance(61_000);
    c.ds.hook({
      when: 'before',
      op: 'delete',
      kind: 'IPAMBlock',
      run: () => {
        throw new IpamError('Unavailable', 'injected: etcd unavailable');
      },
    });
    const b = c.client();
    expect(
      (await b.autoAssign({ num4: 1, hostname: 'b', intendedUse: 'Workload' })).v4,
    ).toMatchObject({
      ips: [],
      msgs: [STRICT_MSG],
    });
    expect(c.ds.count('delete', 'IPAMBlock')).toBe(1);
    expect((await c.blocks())[0]!.affinity).toBe('host:a');

    expect(
      (await b.autoAssign({ num4: 1, hostname: 'b', intendedUse: 'Workload' })).v4.ips,
    ).toHaveLength(1);
    expect((await c.affinities()).map((x) => `${x.host}:${x.state}`)).toEqual(['b:confirmed']);
  });

  // Found by tools/reliability (kube-faults): after a block write of unknown outcome the
  // assignment went on to the next block, so the handle counted an address no block held.
  it.each(['before', 'after'] as const)(
    'a block write of unknown outcome (lost %s it applied) ends the assignment; counts agree after its DEL',
    async (when) => {
      const c = await createTestCluster({
        pools: [{ cidr: '10.0.0.0/25', blockSize: 26 }],
        hosts: ['a'],
      });
      const a = c.client();
      await a.autoAssign({ num4: 1, hostname: 'a', handleId: 'first', intendedUse: 'Workload' });
      c.ds.hook({
        when,
        op: 'update',
        kind: 'IPAMBlock',
        run: () => {
          throw new IpamError('Unavailable', 'injected: the answer was lost');
        },
      });
      await expect(
        a.autoAssign({ num4: 1, hostname: 'a', handleId: 'h2', intendedUse: 'Workload' }),
      ).rejects.toMatchObject({ code: 'Unavailable' });
      // Nothing was taken from another block: only the write in doubt can hold h2's address.
      const held = await a.ipsByHandle('h2');
      expect(held).toHaveLength(when === 'after' ? 1 : 0);
      const handle = await c.store.get({ kind: 'IPAMHandle', handleId: 'h2' });
      expect(Object.values(handle.value.block)).toEqual([1]);
      expect(await c.blocks()).toHaveLength(1);

      // The runtime's DEL: the handle and whatever it holds are gone, nothing else moved.
      await a.releaseByHandle('h2');
      await expect(c.store.get({ kind: 'IPAMHandle', handleId: 'h2' })).rejects.toMatchObject({
        code: 'DoesNotExist',
      });
      expect(await a.ipsByHandle('first')).toHaveLength(1);
      expect(await c.invariantProblems()).toEqual([]);
    },
  );
});
