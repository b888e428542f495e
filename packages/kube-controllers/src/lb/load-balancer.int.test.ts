// The LoadBalancer controller against the real kube-apiserver (Services, their status
// subresource, Events, the Lease) with the IPAM store on etcd and on the Kubernetes store. The
// store is a parameter (test-stores.ts).
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { V1Service } from '@kubernetes/client-node';
import { createIpamClient } from '@netledger/ipam-core';
import { createMirroredDatastore } from '@netledger/ipam-core/adapter';
import type { Datastore, IpamClient } from '@netledger/ipam-core';
import { blockAllocations } from '@netledger/ipam-core/block';
import { startKubeApiserver } from '@netledger/testkit';
import type { KubeApiserverFixture } from '@netledger/testkit';
import { startControllerManager } from '../manager/controller-manager.js';
import type { ControllerManager } from '../manager/controller-manager.js';
import { createKubeApis, loadKubeConfig } from '../kube/kube-client.js';
import type { KubeApis } from '../kube/kube-client.js';
import { loadBalancerHandle, sharedAddressHandle } from './lb-handle.js';
import { loadBalancerSettings } from './lb-settings.js';
import { createLoadBalancerController } from './load-balancer-controller.js';
import type { LoadBalancerController } from './load-balancer-controller.js';
import type { LogFields, Logger } from '../logger.js';
import { SERVICE_ANNOTATIONS } from '@netledger/ipam-core/load-balancer';
import { createNamespace } from '../kube/test-kube.js';
import { openStore, storeTargets } from '../test-stores.js';

let api: KubeApiserverFixture;
let kube: KubeApis;
let seq = 0;
const STORES = storeTargets(() => api).filter((t) => t.name !== 'file');

beforeAll(async () => {
  api = await startKubeApiserver();
  kube = createKubeApis(loadKubeConfig({ kubeconfig: api.kubeconfigPath }));
});
afterAll(async () => {
  await api?.stop();
});

interface LogLine {
  readonly msg: string;
  readonly fields: LogFields;
}

describe.each(STORES)('LoadBalancer controller with the store on $name', (target) => {
  let store: Awaited<ReturnType<typeof openStore>>;
  let ipam: IpamClient;
  let ns: string;
  let lines: LogLine[];
  let running: { manager: ControllerManager; lb: LoadBalancerController } | undefined;
  let mirror: Datastore | undefined;

  const logger: Logger = { log: (_l, msg, fields = {}) => void lines.push({ msg, fields }) };

  /** Starts the controller (a new process, as far as it knows) and waits until it is synced and idle. */
  async function startController(): Promise<LoadBalancerController> {
    const lb = createLoadBalancerController({
      settings: loadBalancerSettings({ backoffBaseMs: 100, backoffMaxMs: 1000 }),
    });
    // Each run its own mirror (a process's), over the test's store, which outlives it.
    await mirror?.close();
    mirror = createMirroredDatastore(
      new Proxy(store.datastore, {
        get: (t, k): unknown => (k === 'close' ? async () => undefined : Reflect.get(t, k)),
      }),
    );
    const manager = await startControllerManager({
      controllers: [lb],
      kube,
      datastore: store.datastore,
      ipam: createIpamClient({ datastore: mirror }),
      logger,
      leaderElection: {
        namespace: 'kube-system',
        name: `lb-test-${seq}`,
        retryPeriodMs: 200,
        renewDeadlineMs: 1500,
        leaseDurationMs: 2000,
      },
      listen: { host: '127.0.0.1', port: 0 },
    });
    running = { manager, lb };
    await until(lb, () => manager.elector.isLeader() && lb.isActive(), 'leading and active');
    await lb.idle();
    return lb;
  }

  async function stopController(): Promise<void> {
    await running?.manager.stop();
    running = undefined;
  }

  /** Resolves once `ok()` holds: checked now and after each reconcile (and leadership change). */
  function until(
    lb: LoadBalancerController,
    ok: () => boolean | Promise<boolean>,
    what: string,
    timeoutMs = 60_000,
  ): Promise<void> {
    return new Promise((resolve, reject) => {
      let done = false;
      const timer = setTimeout(() => finish(new Error(`timed out waiting for ${what}`)), timeoutMs);
      const finish = (e?: Error): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        for (const ev of ['reconciled', 'idle', 'active']) lb.events.off(ev, check);
        if (e) reject(e);
        else resolve();
      };
      const check = (): void => void Promise.resolve(ok()).then((yes) => yes && finish(), finish);
      for (const ev of ['reconciled', 'idle', 'active']) lb.events.on(ev, check);
      check();
    });
  }

  const createService = async (
    name: string,
    spec: Partial<NonNullable<V1Service['spec']>> = {},
    annotations: Record<string, string> = {},
  ): Promise<V1Service> =>
    kube.core.createNamespacedService({
      namespace: ns,
      body: {
        metadata: { name, annotations },
        spec: { type: 'LoadBalancer', ports: [{ port: 80, protocol: 'TCP' }], ...spec },
      },
    });
  const ingressOf = async (name: string): Promise<string[]> => {
    const s = await kube.core.readNamespacedService({ name, namespace: ns });
    return (s.status?.loadBalancer?.ingress ?? []).map((e) => e.ip ?? '');
  };
  /** Every non-cooling allocation in the store: ip -> handle. */
  const allocations = async (): Promise<Map<string, string>> => {
    const out = new Map<string, string>();
    for (const kv of (await store.datastore.list({ kind: 'IPAMBlock' })).items)
      for (const a of blockAllocations(kv.value))
        if (!a.coolingDown && a.handle !== undefined) out.set(a.ip, a.handle);
    return out;
  };
  const eventsOf = async (name: string) =>
    (
      await kube.core.listNamespacedEvent({
        namespace: ns,
        fieldSelector: `involvedObject.name=${name}`,
      })
    ).items.map((e) => ({ type: e.type, reason: e.reason, message: e.message }));
  const assignedLines = () => lines.filter((l) => l.msg === 'assigned LoadBalancer address');

  beforeEach(async () => {
    seq++;
    lines = [];
    store = await openStore(target);
    ipam = createIpamClient({ datastore: store.datastore });
    ns = `lb-${target.name}-${seq}`;
    await createNamespace(kube.core, ns);
    await ipam.pools.create({
      metadata: { name: 'lb-v4' },
      spec: { cidr: '10.96.128.0/22', blockSize: 26, allowedUses: ['LoadBalancer'] },
    });
  });

  afterEach(async () => {
    await stopController();
    // The API server outlives the test (and namespaces never finish deleting there): its
    // Services go, or the next test's controller, which manages every LoadBalancer Service,
    // would give them addresses too.
    await kube.core.deleteCollectionNamespacedService({ namespace: ns });
    await mirror?.close();
    mirror = undefined;
    await store?.stop();
  });

  it('gives a Service one address per requested family and keeps it across restarts', async () => {
    await createService('single', { ipFamilyPolicy: 'SingleStack' });
    // The test API server is IPv4-only: PreferDualStack resolves to ipFamilies [IPv4].
    const prefer = await createService('prefer', { ipFamilyPolicy: 'PreferDualStack' });
    expect(prefer.spec?.ipFamilies).toEqual(['IPv4']);
    const lb = await startController();
    await until(
      lb,
      async () =>
        (await ingressOf('single')).length === 1 && (await ingressOf('prefer')).length === 1,
      'both addressed',
    );
    await lb.idle(); // Events are recorded after the status is written
    const single = await ingressOf('single');
    const before = await allocations();
    expect(before.size).toBe(2);
    const svc = await kube.core.readNamespacedService({ name: 'single', namespace: ns });
    expect(before.get(single[0]!)).toBe(
      loadBalancerHandle({ name: 'single', namespace: ns, uid: svc.metadata!.uid! }),
    );
    const attrs = await ipam.getAssignmentAttributes(single[0]!);
    expect(attrs.activeOwnerAttrs).toMatchObject({
      service: 'single',
      namespace: ns,
      type: 'LoadBalancer',
    });
    expect(await eventsOf('single')).toContainEqual({
      type: 'Normal',
      reason: 'AddressAssigned',
      message: `status.loadBalancer.ingress: ${single[0]}`,
    });
    await stopController();
    lines = [];
    await startController();
    expect(assignedLines()).toEqual([]);
    expect(await allocations()).toEqual(before);
    expect(await ingressOf('single')).toEqual(single);
  });

  it('cold-starts with 200 existing Services: each gets one address, and a restart assigns nothing', async () => {
    const names = Array.from({ length: 200 }, (_, i) => `svc-${i}`);
    for (let i = 0; i < names.length; i += 20)
      await Promise.all(names.slice(i, i + 20).map((n) => createService(n)));
    const lb = await startController();
    const list = async () =>
      (await kube.core.listNamespacedService({ namespace: ns })).items.filter(
        (s) => (s.status?.loadBalancer?.ingress ?? []).length === 1,
      ).length;
    await until(lb, async () => (await list()) === 200, '200 Services addressed', 120_000);
    const first = await allocations();
    expect(first.size).toBe(200);
    expect(new Set(first.values()).size).toBe(200);
    expect(assignedLines()).toHaveLength(200);
    await stopController();
    lines = [];
    await startController();
    expect(assignedLines()).toEqual([]);
    expect(lines.filter((l) => l.msg.startsWith('released'))).toEqual([]);
    expect(await allocations()).toEqual(first);
  }, 180_000);

  it('assigns specific addresses, shares one under a sharing key, and refuses a port clash with an Event', async () => {
    const lb = await startController();
    await createService(
      'pinned',
      {},
      { [SERVICE_ANNOTATIONS.loadBalancerIps]: '["10.96.128.10"]' },
    );
    await createService('legacy', { loadBalancerIP: '10.96.128.11' });
    const key = { [SERVICE_ANNOTATIONS.sharingKey]: 'front' };
    await createService('http', { ports: [{ port: 80, protocol: 'TCP' }] }, key);
    await createService('dns', { ports: [{ port: 53, protocol: 'UDP' }] }, key);
    await until(
      lb,
      async () =>
        (await ingressOf('pinned'))[0] === '10.96.128.10' &&
        (await ingressOf('legacy'))[0] === '10.96.128.11' &&
        (await ingressOf('http')).length === 1 &&
        (await ingressOf('dns')).length === 1,
      'all addressed',
    );
    const [shared] = await ingressOf('http');
    expect(await ingressOf('dns')).toEqual([shared]);
    expect((await allocations()).get(shared!)).toBe(
      sharedAddressHandle({ namespace: ns, sharingKey: 'front' }),
    );
    await createService('clash', { ports: [{ port: 80, protocol: 'TCP' }] }, key);
    await until(
      lb,
      async () => (await eventsOf('clash')).some((e) => e.reason === 'PortClash'),
      'the refusal',
    );
    expect(await ingressOf('clash')).toEqual([]);
    expect(await eventsOf('clash')).toEqual([
      {
        type: 'Warning',
        reason: 'PortClash',
        message:
          'not sharing the address of sharing key "front": port TCP/80 already used by service http',
      },
    ]);
    expect((await allocations()).size).toBe(3);
  });

  it('releases on delete and on a type change', async () => {
    const lb = await startController();
    await createService('gone');
    await createService('changed');
    await until(
      lb,
      async () =>
        (await ingressOf('gone')).length === 1 && (await ingressOf('changed')).length === 1,
      'both addressed',
    );
    expect((await allocations()).size).toBe(2);
    await kube.core.deleteNamespacedService({ name: 'gone', namespace: ns });
    await kube.core.patchNamespacedService({
      name: 'changed',
      namespace: ns,
      body: [{ op: 'replace', path: '/spec/type', value: 'ClusterIP' }],
    });
    await until(lb, async () => (await allocations()).size === 0, 'both released');
    await until(lb, async () => (await ingressOf('changed')).length === 0, 'the status cleaned');
    await lb.idle(); // the store shows a release before its reconcile logs it
    expect(lines.filter((l) => l.msg === 'released LoadBalancer addresses')).toHaveLength(2);
    expect(await eventsOf('changed')).toContainEqual(
      expect.objectContaining({ type: 'Normal', reason: 'AddressReleased' }),
    );
  });

  it('releases the address of a pool that disappears: from another pool if one is left, else none', async () => {
    const lb = await startController();
    await createService('moved');
    await until(lb, async () => (await ingressOf('moved')).length === 1, 'addressed');
    const [first] = await ingressOf('moved');
    expect(first).toMatch(/^10\.96\.(12[89]|13[01])\./); // lb-v4, 10.96.128.0/22
    await ipam.pools.create({
      metadata: { name: 'lb-v4-next' },
      spec: { cidr: '10.96.140.0/24', blockSize: 26, allowedUses: ['LoadBalancer'] },
    });
    // A new pool moves nothing (the address's own pool still exists): seen, reconciled, kept.
    await until(lb, () => lb.state.pools.has('lb-v4-next'), 'the new pool seen');
    await lb.idle();
    expect(await ingressOf('moved')).toEqual([first]);
    await ipam.pools.delete('lb-v4');
    await until(
      lb,
      async () => /^10\.96\.140\./.test((await ingressOf('moved'))[0] ?? ''),
      'an address from the pool left',
    );
    const [second] = await ingressOf('moved');
    await until(lb, async () => (await allocations()).size === 1, 'the old address released');
    expect([...(await allocations()).keys()]).toEqual([second]);
    await lb.idle();
    expect(await eventsOf('moved')).toContainEqual({
      type: 'Normal',
      reason: 'AddressReleased',
      message: `released ${first}: it is in no LoadBalancer IP pool (the pool is gone)`,
    });
    await ipam.pools.delete('lb-v4-next');
    await until(lb, async () => (await allocations()).size === 0, 'the last address released');
    await until(lb, async () => (await ingressOf('moved')).length === 0, 'the status cleaned');
  });
});
