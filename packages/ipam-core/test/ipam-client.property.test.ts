import { formatCidr, maskIp, parseIp } from '@netledger/accounting';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isIpamError } from '../src/errors.js';
import type { IpamClient } from '../src/client/ipam-client.js';
import type { TestCluster } from './test-cluster.js';
import { createTestCluster } from './test-cluster.js';
import { createMirroredDatastore } from '../src/datastore/mirrored-datastore.js';

/**
 * Random sequences of client operations over the memory store, checked after every step against
 * a model of who holds which address: nothing handed out twice, nothing lost, invariants and
 * handle counts intact. Pool 10.0.0.0/27 in /29 blocks: small enough to exhaust and to borrow.
 */
const POOL = '10.0.0.0/27';
const BLOCK_SIZE = 29;
const HOSTS = ['h1', 'h2', 'h3'] as const;
const BLOCKS = ['10.0.0.0/29', '10.0.0.8/29', '10.0.0.16/29', '10.0.0.24/29'];

type Host = (typeof HOSTS)[number];
type Cmd =
  | { t: 'auto'; host: Host; num: number; reuseHandle: boolean; maxBlocks?: number }
  | { t: 'assign'; host: Host; ordinal: number }
  | { t: 'release'; picks: number[]; withHandle: boolean; extraFree?: number }
  | { t: 'releaseByHandle'; pick: number; unknown: boolean }
  | { t: 'claim'; host: Host; block: number }
  | { t: 'releaseAffinity'; host: Host; block: number; mustBeEmpty: boolean }
  | { t: 'releaseHost'; host: Host; mustBeEmpty: boolean }
  | { t: 'config'; strict: boolean; cooldown: number }
  | { t: 'advance'; ms: number };

const host = fc.constantFrom(...HOSTS);
const cmd: fc.Arbitrary<Cmd> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      t: fc.constant('auto' as const),
      host,
      num: fc.integer({ min: 1, max: 5 }),
      reuseHandle: fc.boolean(),
      maxBlocks: fc.option(fc.constantFrom(1, 2), { nil: undefined }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant('assign' as const),
      host,
      ordinal: fc.integer({ min: 0, max: 31 }),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      t: fc.constant('release' as const),
      picks: fc.array(fc.nat(), { minLength: 1, maxLength: 4 }),
      withHandle: fc.boolean(),
      extraFree: fc.option(fc.integer({ min: 0, max: 31 }), { nil: undefined }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant('releaseByHandle' as const),
      pick: fc.nat(),
      unknown: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      t: fc.constant('claim' as const),
      host,
      block: fc.integer({ min: 0, max: 3 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      t: fc.constant('releaseAffinity' as const),
      host,
      block: fc.integer({ min: 0, max: 3 }),
      mustBeEmpty: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      t: fc.constant('releaseHost' as const),
      host,
      mustBeEmpty: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      t: fc.constant('config' as const),
      strict: fc.boolean(),
      cooldown: fc.constantFrom(0, 1, 30),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant('advance' as const),
      ms: fc.oneof(fc.integer({ min: 0, max: 45_000 }), fc.constantFrom(1_000, 30_000, 61_000)),
    }),
  },
);

interface Model {
  /** Address -> the handle holding it. */
  held: Map<string, string>;
  /** Released address -> release time as stored (whole seconds) and the smallest cooldown since. */
  released: Map<string, { at: number; minCooldown: number }>;
  cooldown: number;
  nextHandle: number;
}

const blockOf = (ip: string) => formatCidr(maskIp(parseIp(ip), BLOCK_SIZE));
const strip = (ip: string) => ip.split('/')[0]!;

function mustStillCool(m: Model, ip: string, now: number): boolean {
  const r = m.released.get(ip);
  return r !== undefined && now - r.at < r.minCooldown * 1000;
}

function take(m: Model, ips: readonly string[], handle: string, now: number): void {
  for (const withMask of ips) {
    const ip = strip(withMask);
    expect(m.held.has(ip), `${ip} handed out twice`).toBe(false);
    expect(mustStillCool(m, ip, now), `${ip} handed out while cooling down`).toBe(false);
    m.held.set(ip, handle);
    m.released.delete(ip);
  }
}

function giveBack(m: Model, ips: readonly string[], now: number): void {
  for (const ip of ips) {
    m.held.delete(ip);
    m.released.set(ip, { at: Math.floor(now / 1000) * 1000, minCooldown: m.cooldown });
  }
}

async function checkModel(c: TestCluster, client: IpamClient, m: Model): Promise<void> {
  const now = c.clock.now();
  expect(await c.invariantProblems()).toEqual([]);
  const live = new Map<string, string | undefined>();
  const cooling = new Set<string>();
  for (const b of await c.blocks()) {
    const base = parseIp(b.cidr.split('/')[0]!).value;
    b.allocations.forEach((idx, o) => {
      if (idx === null) return;
      const attr = b.attributes[idx]!;
      const ip = `10.0.0.${Number(base & 0xffn) + o}`;
      if (attr.releasedAt !== undefined) cooling.add(ip);
      else live.set(ip, attr.handleId);
    });
  }
  // Nothing lost, nothing extra: the store holds exactly what the model says is held.
  expect(live).toEqual(m.held);
  for (const ip of cooling)
    expect(m.released.has(ip), `${ip} cooling but never released`).toBe(true);
  for (const ip of m.released.keys())
    if (mustStillCool(m, ip, now)) expect(cooling.has(ip), `${ip} left cooldown early`).toBe(true);

  const [pool] = await client.getUtilization({ pools: [POOL] });
  expect(pool!.inUse).toBe(m.held.size + cooling.size);

  // Every handle counts exactly the addresses it holds, block by block.
  const expected = new Map<string, Record<string, number>>();
  for (const [ip, h] of m.held) {
    const counts = expected.get(h) ?? {};
    counts[blockOf(ip)] = (counts[blockOf(ip)] ?? 0) + 1;
    expected.set(h, counts);
  }
  const handles = (await c.store.list({ kind: 'IPAMHandle' })).items;
  expect(new Map(handles.map((kv) => [kv.key.handleId, { ...kv.value.block }]))).toEqual(expected);
}

async function run(c: TestCluster, client: IpamClient, m: Model, x: Cmd): Promise<void> {
  const now = c.clock.now();
  const handles = () => [...new Set(m.held.values())];
  switch (x.t) {
    case 'advance':
      c.clock.advance(x.ms);
      return;
    case 'config': {
      const current = await client.getIpamConfig();
      await client.setIpamConfig({
        ...current,
        strictAffinity: x.strict,
        ipCooldownSeconds: x.cooldown,
      });
      m.cooldown = x.cooldown;
      for (const r of m.released.values()) r.minCooldown = Math.min(r.minCooldown, x.cooldown);
      return;
    }
    case 'auto': {
      const existing = handles().filter((h) => h.startsWith(`${x.host}-`));
      const handle =
        x.reuseHandle && existing.length > 0 ? existing[0]! : `${x.host}-${m.nextHandle++}`;
      try {
        const r = await client.autoAssign({
          num4: x.num,
          hostname: x.host,
          handleId: handle,
          intendedUse: 'Workload',
          ...(x.maxBlocks !== undefined && { maxBlocksPerHost: x.maxBlocks }),
        });
        expect(r.v4.ips.length).toBeLessThanOrEqual(x.num);
        // Commands run one at a time: only a stale block hint could make a block write fail.
        expect(r.v4.msgs).not.toContain('Failed to assign IPs in newly allocated block');
        take(m, r.v4.ips, handle, now);
      } catch (e) {
        expect(isIpamError(e, 'BlockLimit'), String(e)).toBe(true);
        const partial = (e as { partial: { v4: { ips: string[] } } }).partial;
        take(m, partial.v4.ips, handle, now);
      }
      return;
    }
    case 'assign': {
      const ip = `10.0.0.${x.ordinal}`;
      const busy = m.held.has(ip) || mustStillCool(m, ip, now);
      const handle = `${x.host}-${m.nextHandle++}`;
      try {
        await client.assignIp({ ip, hostname: x.host, handleId: handle });
        expect(busy, `${ip} assigned while held or cooling`).toBe(false);
        take(m, [ip], handle, now);
      } catch (e) {
        // Taken, or (strict affinity) in a block affine to another host.
        expect(isIpamError(e, 'AlreadyExists', 'InvalidArgument'), String(e)).toBe(true);
        if (isIpamError(e, 'AlreadyExists')) expect(busy || m.released.has(ip)).toBe(true);
      }
      return;
    }
    case 'release': {
      const held = [...m.held.keys()];
      const picked =
        held.length === 0 ? [] : [...new Set(x.picks.map((p) => held[p % held.length]!))];
      const free =
        x.extraFree !== undefined && !m.held.has(`10.0.0.${x.extraFree}`)
          ? [`10.0.0.${x.extraFree}`]
          : [];
      if (picked.length + free.length === 0) return;
      const r = await client.releaseIps([
        ...picked.map((ip) => ({ address: ip, ...(x.withHandle && { handle: m.held.get(ip)! }) })),
        ...free.map((ip) => ({ address: ip })),
      ]);
      expect(new Set(r.unallocated)).toEqual(new Set(free));
      giveBack(m, picked, now);
      return;
    }
    case 'releaseByHandle': {
      const all = handles();
      if (x.unknown || all.length === 0) {
        await expect(client.releaseByHandle('no-such-handle')).rejects.toMatchObject({
          code: 'DoesNotExist',
        });
        return;
      }
      const h = all[x.pick % all.length]!;
      await client.releaseByHandle(h);
      giveBack(
        m,
        [...m.held].filter(([, hh]) => hh === h).map(([ip]) => ip),
        now,
      );
      return;
    }
    case 'claim': {
      const r = await client.claimAffinity(BLOCKS[x.block]!, {
        affinityType: 'host',
        host: x.host,
      });
      expect(r.claimed.length + r.failed.length).toBe(1);
      return;
    }
    case 'releaseAffinity':
      try {
        await client.releaseAffinity(BLOCKS[x.block]!, x.host, { mustBeEmpty: x.mustBeEmpty });
      } catch (e) {
        expect(x.mustBeEmpty && isIpamError(e, 'BlockNotEmpty'), String(e)).toBe(true);
      }
      return;
    case 'releaseHost':
      try {
        await client.releaseHostAffinities(
          { affinityType: 'host', host: x.host },
          { mustBeEmpty: x.mustBeEmpty },
        );
      } catch (e) {
        expect(x.mustBeEmpty && isIpamError(e, 'BlockNotEmpty'), String(e)).toBe(true);
      }
      return;
  }
}

describe('IPAM client (property, memory store)', () => {
  // Two clients, so each one's remembered blocks go stale behind it. Over a mirror they share,
  // every read of pools, config, nodes and affinities comes from memory.
  it.each([
    ['two clients', false],
    ['two clients over one mirror', true],
  ])('random operations through %s keep every address accounted for', async (_, mirrored) => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(cmd, fc.constantFrom(0, 1)), { minLength: 1, maxLength: 30 }),
        async (steps) => {
          const c = await createTestCluster({
            pools: [{ cidr: POOL, blockSize: BLOCK_SIZE }],
            hosts: HOSTS,
          });
          const ds = mirrored ? createMirroredDatastore(c.ds) : c.ds;
          const clients = [c.client(undefined, ds), c.client(undefined, ds)];
          const m: Model = { held: new Map(), released: new Map(), cooldown: 0, nextHandle: 0 };
          try {
            for (const [x, via] of steps) {
              await run(c, clients[via]!, m, x);
              await checkModel(c, clients[0]!, m);
            }
          } finally {
            await ds.close();
          }
        },
      ),
      { numRuns: 100 },
    );
  });
});
