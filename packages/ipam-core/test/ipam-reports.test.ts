// The client's report port: a best-effort step that fails (a store wrapper fails its write) is
// reported with what failed and why, as Calico logs it, and the operation's result or error is the
// same as without a reporter; without one nothing is reported and nothing is printed.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { findUsableBlock } from '../src/client/find-usable-block.js';
import { createIpamClient } from '../src/client/ipam-client.js';
import type { IpamClient } from '../src/client/ipam-client.js';
import type { IpamReport } from '../src/client/ipam-report.js';
import { loadConfig, loadPools, loadReservations } from '../src/client/ipam-reads.js';
import { IpamError } from '../src/errors.js';
import { createSeededRandom, createTestCluster } from './test-cluster.js';
import type { TestCluster } from './test-cluster.js';

type ClusterArgs = Parameters<typeof createTestCluster>[0];

const POOL_26 = { pools: [{ cidr: '10.0.0.0/26', blockSize: 26 }], hosts: ['a', 'b'] };
const POOL_25 = { pools: [{ cidr: '10.0.0.0/25', blockSize: 26 }], hosts: ['a', 'b'] };
const host = (h: string) => ({ affinityType: 'host' as const, host: h });
const WINDOWS = {
  startOfBlock: 3,
  endOfBlock: 1,
  handle: 'windows-reserved-ipam-handle',
  note: '',
};
const addressOf = (ipWithMask: string) => ipWithMask.split('/')[0]!;

/** A hook body failing the call it runs before, as an unreachable store would. */
const failWith =
  (what: string, code: IpamError['code'] = 'Unavailable') =>
  (): never => {
    throw new IpamError(code, `injected: ${what}`);
  };

/** A settled outcome: the value, or the error's code and message. */
type Outcome = { value: unknown } | { error: { code: unknown; message: string } };
const settle = (p: Promise<unknown>): Promise<Outcome> =>
  p.then(
    (value) => ({ value }),
    (e: unknown) => ({ error: { code: (e as IpamError).code, message: (e as Error).message } }),
  );

/** A scenario: set up through `c` (its hooks fail chosen writes), then act through `client`. */
type Scenario = (c: TestCluster, client: IpamClient) => Promise<unknown>;

const CONSOLE = ['log', 'info', 'warn', 'error', 'debug'] as const;

afterEach(() => {
  vi.restoreAllMocks();
});

/**
 * Runs `scenario` twice, each on a fresh cluster: with a reporter (its reports collected) and
 * without one (the console watched). Returns both outcomes, the reports, and the console calls.
 */
async function withAndWithout(args: ClusterArgs, scenario: Scenario) {
  const run = async (report?: (r: IpamReport) => void) => {
    const c = await createTestCluster(args);
    const client = createIpamClient({
      datastore: c.ds,
      clock: c.clock,
      random: createSeededRandom(1000),
      ...(report && { report }),
    });
    return settle(scenario(c, client));
  };
  const reports: IpamReport[] = [];
  const reported = await run((r) => reports.push(r));
  const spies = CONSOLE.map((m) => vi.spyOn(console, m));
  const silent = await run();
  const printed = spies.flatMap((s) => s.mock.calls);
  return { reported, silent, reports, printed };
}

describe('the report port: a failed best-effort step is reported, the outcome unchanged', () => {
  it('releaseIps: the handle not decremented (its write fails) is reported; the release stands', async () => {
    const r = await withAndWithout(POOL_26, async (c, client) => {
      const { v4 } = await client.autoAssign({
        num4: 2,
        hostname: 'a',
        handleId: 'h',
        intendedUse: 'Workload',
      });
      c.ds.hook({
        when: 'before',
        op: 'update',
        kind: 'IPAMHandle',
        run: failWith('handle write'),
      });
      return client.releaseIps([{ address: addressOf(v4.ips[0]!) }]);
    });
    expect(r.reported).toEqual(r.silent);
    expect(r.reported).toMatchObject({
      value: { unallocated: [], released: [{ address: '10.0.0.0' }] },
    });
    expect(r.reports).toMatchObject([
      {
        level: 'warning',
        message: 'Failed to decrement handle',
        operation: 'decrementHandle',
        handle: 'h',
        cidr: '10.0.0.0/26',
        cause: { code: 'Unavailable', message: 'injected: handle write' },
      },
    ]);
    expect(r.printed).toEqual([]);
  });

  it('releaseByHandle: the handle not deleted after its last block is reported; the release stands', async () => {
    const r = await withAndWithout(POOL_26, async (c, client) => {
      await client.autoAssign({ num4: 2, hostname: 'a', handleId: 'h', intendedUse: 'Workload' });
      c.ds.hook({
        when: 'before',
        op: 'delete',
        kind: 'IPAMHandle',
        run: failWith('handle delete'),
      });
      await client.releaseByHandle('h');
      return { left: (await c.blocks())[0]?.allocations.filter((a) => a !== null).length };
    });
    expect(r.reported).toEqual(r.silent);
    expect(r.reported).toEqual({ value: { left: 0 } });
    expect(r.reports).toMatchObject([
      {
        level: 'warning',
        message: 'Failed to decrement handle',
        operation: 'decrementHandle',
        handle: 'h',
        cidr: '10.0.0.0/26',
        cause: { code: 'Unavailable' },
      },
    ]);
    expect(r.printed).toEqual([]);
  });

  it('releaseIps: ensuring the emptied block’s affinity failing (reading its node) is reported', async () => {
    const r = await withAndWithout(POOL_26, async (c, client) => {
      const { v4 } = await client.autoAssign({ num4: 1, hostname: 'a', intendedUse: 'Workload' });
      c.ds.hook({ when: 'before', op: 'get', kind: 'Node', run: failWith('node read') });
      return client.releaseIps([{ address: addressOf(v4.ips[0]!) }]);
    });
    expect(r.reported).toEqual(r.silent);
    expect(r.reported).toMatchObject({ value: { released: [{ address: '10.0.0.0' }] } });
    expect(r.reports).toMatchObject([
      {
        level: 'warning',
        message: 'Error ensuring consistent affinity but IP already released. Returning no error.',
        operation: 'ensureConsistentAffinity',
        cidr: '10.0.0.0/26',
        cause: { code: 'Unavailable', message: 'injected: node read' },
      },
    ]);
  });

  it('a lost claim whose pending affinity cannot be deleted is reported (error); the next block is used', async () => {
    let stolen: string | undefined;
    const r = await withAndWithout(POOL_25, async (c, client) => {
      c.ds.hook({
        when: 'before',
        op: 'create',
        kind: 'IPAMBlock',
        match: (call) => (call.value as { affinity?: string }).affinity === 'host:a',
        run: async (call) => {
          stolen = (call.key as { cidr: string }).cidr;
          await c.direct().claimAffinity(stolen, host('b'));
        },
      });
      c.ds.hook({
        when: 'before',
        op: 'delete',
        kind: 'BlockAffinity',
        match: (call) => (call.key as { host: string }).host === 'a',
        run: failWith('affinity delete'),
      });
      const { v4 } = await client.autoAssign({ num4: 1, hostname: 'a', intendedUse: 'Workload' });
      return { ips: v4.ips, stolen };
    });
    expect(r.reported).toEqual(r.silent);
    expect(r.reported).toMatchObject({ value: { ips: [expect.any(String)] } });
    expect(r.reports).toMatchObject([
      {
        level: 'error',
        message: 'Error deleting block affinity',
        operation: 'deleteAffinity',
        cidr: stolen,
        host: 'a',
        cause: { code: 'Unavailable', message: 'injected: affinity delete' },
      },
    ]);
  });

  it('a stale affinity that cannot be deleted while releasing it is reported; the release resolves', async () => {
    const r = await withAndWithout(POOL_26, async (c, client) => {
      await c.direct().claimAffinity('10.0.0.0/26', host('b'));
      await c.store.create({
        key: { kind: 'BlockAffinity', host: 'a', affinityType: 'host', cidr: '10.0.0.0/26' },
        value: { state: 'confirmed', deleted: false },
      });
      c.ds.hook({
        when: 'before',
        op: 'delete',
        kind: 'BlockAffinity',
        run: failWith('affinity delete'),
      });
      return client.releaseAffinity('10.0.0.0/26', 'a', { mustBeEmpty: false });
    });
    expect(r.reported).toEqual(r.silent);
    expect(r.reported).toEqual({ value: undefined });
    expect(r.reports).toMatchObject([
      {
        level: 'warning',
        message: 'Failed to delete stale affinity',
        operation: 'deleteAffinity',
        cidr: '10.0.0.0/26',
        host: 'a',
        cause: { code: 'Unavailable' },
      },
    ]);
  });

  it('an affine block that cannot be read is reported and skipped', async () => {
    const r = await withAndWithout(POOL_25, async (c, client) => {
      const first = await client.autoAssign({ num4: 1, hostname: 'a', intendedUse: 'Workload' });
      const [block] = await c.blocks();
      c.ds.hook({
        when: 'before',
        op: 'get',
        kind: 'IPAMBlock',
        match: (call) => (call.key as { cidr: string }).cidr === block!.cidr,
        run: failWith('block read'),
      });
      const { v4 } = await client.autoAssign({ num4: 1, hostname: 'a', intendedUse: 'Workload' });
      return { first: first.v4.ips, then: v4.ips, block: block!.cidr };
    });
    expect(r.reported).toEqual(r.silent);
    const { block } = (r.reported as { value: { block: string } }).value;
    expect(r.reports).toMatchObject([
      {
        level: 'warning',
        message: "Couldn't get block for affinity, try next one",
        operation: 'useAffineBlock',
        cidr: block,
        host: 'a',
        cause: { code: 'Unavailable', message: 'injected: block read' },
      },
    ]);
  });

  it('an empty block that cannot be reclaimed is reported; the assignment gives 0 addresses', async () => {
    const r = await withAndWithout({ ...POOL_26, strict: true }, async (c, client) => {
      const a = c.direct();
      const got = await a.autoAssign({ num4: 1, hostname: 'a', intendedUse: 'Workload' });
      await a.releaseIps([{ address: addressOf(got.v4.ips[0]!) }]);
      c.clock.advance(61_000);
      c.ds.hook({ when: 'before', op: 'delete', kind: 'IPAMBlock', run: failWith('block delete') });
      return (await client.autoAssign({ num4: 1, hostname: 'b', intendedUse: 'Workload' })).v4;
    });
    expect(r.reported).toEqual(r.silent);
    expect(r.reported).toMatchObject({
      value: { ips: [], msgs: ['No more free affine blocks and strict affinity enabled'] },
    });
    expect(r.reports).toMatchObject([
      {
        level: 'warning',
        message: 'Failed to release affinity while trying to reclaim block',
        operation: 'reclaimBlock',
        cidr: '10.0.0.0/26',
        host: 'a',
        cause: { code: 'Unavailable', message: 'injected: block delete' },
      },
    ]);
  });

  it('a block write refused while assigning is reported beside the result’s message', async () => {
    const r = await withAndWithout(POOL_25, async (c, client) => {
      c.ds.hook({
        when: 'before',
        op: 'update',
        kind: 'IPAMBlock',
        run: failWith('block write', 'PermissionDenied'),
      });
      return (
        await client.autoAssign({ num4: 1, hostname: 'a', handleId: 'h', intendedUse: 'Workload' })
      ).v4;
    });
    expect(r.reported).toEqual(r.silent);
    expect(r.reported).toMatchObject({
      value: { ips: [expect.any(String)], msgs: ['Failed to assign IPs in newly allocated block'] },
    });
    expect(r.reports).toMatchObject([
      {
        level: 'warning',
        message: 'Failed to assign IPs in newly allocated block',
        operation: 'assignFromNewBlock',
        cidr: expect.stringMatching(/^10\.0\.0\.(0|64)\/26$/),
        host: 'a',
        handle: 'h',
        cause: { code: 'PermissionDenied', message: 'injected: block write' },
      },
    ]);
  });

  // A write refused outright (not one of unknown outcome, which ends the assignment).
  it.each([
    ['read', 'get', 'Unavailable', 'readBorrowedBlock', 'Failed to get non-affine block'],
    [
      'written',
      'update',
      'PermissionDenied',
      'assignFromBorrowedBlock',
      'Failed to assign IPs from non-affine block in pool 10.0.0.0/26',
    ],
  ] as const)(
    'a block to borrow from that cannot be %s is reported; the assignment gives 0 addresses',
    async (_, op, code, operation, message) => {
      const r = await withAndWithout(POOL_26, async (c, client) => {
        await c.direct().autoAssign({ num4: 1, hostname: 'b', intendedUse: 'Workload' });
        // Borrowing starts with a list of the blocks: fail the next call on one after it.
        c.ds.hook({
          when: 'after',
          op: 'list',
          kind: 'IPAMBlock',
          run: () => {
            c.ds.hook({
              when: 'before',
              op,
              kind: 'IPAMBlock',
              run: failWith(`borrow ${op}`, code),
            });
          },
        });
        return (await client.autoAssign({ num4: 1, hostname: 'a', intendedUse: 'Workload' })).v4;
      });
      expect(r.reported).toEqual(r.silent);
      expect(r.reported).toMatchObject({
        value: { ips: [], msgs: ['No IPs available in pools: [10.0.0.0/26]'] },
      });
      expect(r.reports).toMatchObject([
        {
          level: 'warning',
          message,
          operation,
          cidr: '10.0.0.0/26',
          host: 'a',
          cause: { code, message: `injected: borrow ${op}` },
        },
      ]);
    },
  );

  it('releaseHostAffinities throws the last failure and reports the one it replaced', async () => {
    let failures = 0;
    const r = await withAndWithout(POOL_25, async (c, client) => {
      failures = 0;
      await c.direct().claimAffinity('10.0.0.0/25', host('a'));
      c.ds.hook({
        when: 'before',
        op: 'update',
        kind: 'BlockAffinity',
        times: 2,
        run: (call) => {
          failures++;
          throw new IpamError(
            'Unavailable',
            `injected: ${(call.key as { cidr: string }).cidr} (${failures})`,
          );
        },
      });
      return client.releaseHostAffinities(host('a'), { mustBeEmpty: false });
    });
    expect(r.reported).toEqual(r.silent);
    expect(r.reported).toEqual({
      error: { code: 'Unavailable', message: 'injected: 10.0.0.64/26 (2)' },
    });
    expect(r.reports).toMatchObject([
      {
        level: 'error',
        message: 'Error releasing affinity',
        operation: 'releaseHostAffinity',
        cidr: '10.0.0.0/26',
        host: 'a',
        cause: { code: 'Unavailable', message: 'injected: 10.0.0.0/26 (1)' },
      },
    ]);
  });

  it('a reporter that throws changes nothing: the release stands', async () => {
    const c = await createTestCluster(POOL_26);
    let calls = 0;
    const client = createIpamClient({
      datastore: c.ds,
      clock: c.clock,
      report: () => {
        calls++;
        throw new Error('reporter broke');
      },
    });
    const { v4 } = await client.autoAssign({
      num4: 2,
      hostname: 'a',
      handleId: 'h',
      intendedUse: 'Workload',
    });
    c.ds.hook({ when: 'before', op: 'update', kind: 'IPAMHandle', run: failWith('handle write') });
    await expect(client.releaseIps([{ address: addressOf(v4.ips[0]!) }])).resolves.toEqual({
      unallocated: [],
      released: [{ address: addressOf(v4.ips[0]!) }],
    });
    expect(calls).toBe(1);
  });
});

describe('no free blocks is an IpamError with a code', () => {
  it('findUsableBlock fails NoFreeBlocks (Calico’s "No Free Blocks") when every subnet is taken', async () => {
    const c = await createTestCluster(POOL_26);
    await c.direct().autoAssign({ num4: 1, hostname: 'b', intendedUse: 'Workload' });
    const ctx = c.context();
    await expect(
      findUsableBlock(ctx, {
        affinity: host('a'),
        pools: await loadPools(ctx),
        reservations: await loadReservations(ctx),
        config: await loadConfig(ctx),
      }),
    ).rejects.toMatchObject({ name: 'IpamError', code: 'NoFreeBlocks', message: 'No Free Blocks' });
  });

  it('ensureBlock without a free block fails NoQualifiedPool, caused by NoFreeBlocks', async () => {
    const c = await createTestCluster(POOL_26);
    await c.direct().autoAssign({ num4: 1, hostname: 'b', intendedUse: 'Workload' });
    const err = await c
      .client()
      .ensureBlock({ hostname: 'a', hostReservedAttrIPv4s: WINDOWS })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'NoQualifiedPool',
      message: 'no free block for a in the IPv4 pools',
      cause: { code: 'NoFreeBlocks' },
    });
  });
});
