import { afterEach, describe, expect, it } from 'vitest';
import { createIpamClient, createMemoryDatastore } from '@netledger/ipam-core';
import type { Datastore, IpamClient } from '@netledger/ipam-core';
import type { GcPassReport } from './pass/gc-pass.js';
import { ipamGcSettings } from './gc-settings.js';
import { createIpamGcController } from './ipam-gc-controller.js';
import type { IpamGcController } from './ipam-gc-controller.js';
import { silentLogger } from '../logger.js';
import { createFakeContext } from '../manager/test-fake-context.js';
import { nextEvent } from '../kube/test-kube.js';
import { pod } from './pass/test-gc-harness.js';

// The event loop on the memory store (its real watch) with hand-fed informers and real timers.
let ds: Datastore;
let controller: IpamGcController | undefined;

afterEach(async () => {
  await controller?.stop();
  await ds?.close();
});

async function setup(graceMs: number) {
  ds = createMemoryDatastore();
  const ipam: IpamClient = createIpamClient({ datastore: ds });
  await ipam.pools.create({
    metadata: { name: 'p' },
    spec: { cidr: '10.0.0.0/24', blockSize: 28 },
  });
  await ipam.nodes.create({ metadata: { name: 'n1' } });
  const ctx = createFakeContext({ datastore: ds, ipam, logger: silentLogger });
  ctx.nodes.set({ metadata: { name: 'n1', uid: 'n1' } });
  controller = createIpamGcController({
    settings: ipamGcSettings({
      leakGracePeriodMs: graceMs,
      batchWindowMs: 10,
      fullScanIntervalMs: 60_000,
    }),
    checkConsistency: true,
  });
  const problems: string[][] = [];
  controller.events.on('problems', (p: string[]) => problems.push(p));
  return { ipam, ctx, problems };
}

describe('createIpamGcController', () => {
  it('is not ready before it starts, judges once synced, and releases at the grace deadline without a periodic scan', async () => {
    const { ipam, ctx, problems } = await setup(300);
    expect(controller!.readiness().ok).toBe(false);
    const { v4 } = await ipam.autoAssign({
      num4: 1,
      hostname: 'n1',
      handleId: 'h1',
      attrs: { namespace: 'default', pod: 'web', node: 'n1' },
      intendedUse: 'Workload',
    });
    const ip = v4.ips[0]!.split('/')[0]!;
    ctx.pods.set(pod({ name: 'web', node: 'n1', ips: [ip] }));
    const judged = nextEvent<GcPassReport>(
      controller!.events,
      'pass',
      (r) => r.scannedNodes === 1 && r.candidates === 0,
    );
    await controller!.start(ctx);
    await judged;
    expect(controller!.readiness()).toEqual({ ok: true });
    const candidate = nextEvent<GcPassReport>(
      controller!.events,
      'pass',
      (r) => r.candidates === 1,
    );
    const released = nextEvent<GcPassReport>(controller!.events, 'pass', (r) => r.released === 1);
    ctx.pods.delete('web', 'default');
    await candidate;
    const seenAt = Date.now();
    await released;
    // The full-scan interval is a minute: only the grace deadline can have brought this pass.
    expect(Date.now() - seenAt).toBeGreaterThanOrEqual(300);
    await expect(ipam.getAssignmentAttributes(ip)).rejects.toMatchObject({ code: 'DoesNotExist' });
    expect(await controller!.compareWithStore()).toBe('');
    expect(problems).toEqual([]);
    expect(controller!.health().ok).toBe(true);
  });

  it('serves full-recompute metrics before each scrape', async () => {
    const { ipam, ctx } = await setup(60_000);
    await ipam.autoAssign({
      num4: 2,
      hostname: 'n1',
      handleId: 'h1',
      attrs: { namespace: 'default', pod: 'a', node: 'n1' },
      intendedUse: 'Workload',
    });
    ctx.pods.set(pod({ name: 'a', node: 'n1' }));
    const judged = nextEvent<GcPassReport>(controller!.events, 'pass', (r) => r.scannedNodes === 1);
    await controller!.start(ctx);
    await judged;
    controller!.beforeScrape!();
    const text = await ctx.registry.metrics();
    expect(text).toContain('ipam_allocations_in_use{ippool="p",node="n1"} 2');
    expect(text).toContain('ipam_blocks{ippool="p",node="n1"} 1');
    expect(text).toContain('ipam_gc_leader 1');
  });
});
