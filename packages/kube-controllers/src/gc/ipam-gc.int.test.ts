// The IPAM GC against the real kube-apiserver (pods, nodes, the Lease) with the IPAM store on
// etcd and on the file store. The store is a parameter: see STORES.
import { EventEmitter } from 'node:events';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createIpamClient, isIpamError } from '@netledger/ipam-core';
import { createMirroredDatastore } from '@netledger/ipam-core/adapter';
import type { Datastore, IpamClient } from '@netledger/ipam-core';
import { startKubeApiserver } from '@netledger/testkit';
import type { KubeApiserverFixture } from '@netledger/testkit';
import { startControllerManager } from '../manager/controller-manager.js';
import type { ControllerManager } from '../manager/controller-manager.js';
import type { GcPassReport } from './pass/gc-pass.js';
import { ipamGcSettings } from './gc-settings.js';
import { createIpamGcController } from './ipam-gc-controller.js';
import type { IpamGcController } from './ipam-gc-controller.js';
import { createKubeApis, loadKubeConfig } from '../kube/kube-client.js';
import type { KubeApis } from '../kube/kube-client.js';
import type { LogFields, Logger } from '../logger.js';
import { openStore, storeTargets } from '../test-stores.js';
import {
  createNamespace,
  createNode,
  createPod,
  deleteNode,
  deletePod,
  nextEvent,
} from '../kube/test-kube.js';

// The store is a parameter: etcd, the file store, the Kubernetes store (test-stores.ts).
const STORES = storeTargets(() => api);

const GRACE_MS = 2000;

let api: KubeApiserverFixture;
let kube: KubeApis;
let seq = 0;

beforeAll(async () => {
  api = await startKubeApiserver();
  kube = createKubeApis(loadKubeConfig({ kubeconfig: api.kubeconfigPath }));
});
afterAll(async () => {
  await api?.stop();
});

interface LogEvent {
  readonly level: string;
  readonly msg: string;
  readonly fields: LogFields;
}

describe.each(STORES)('IPAM GC with the store on $name', (target) => {
  let store: { datastore: Datastore; stop: () => Promise<void> };
  let ipam: IpamClient;
  let gc: IpamGcController;
  let manager: ControllerManager;
  let logs: EventEmitter;
  let lines: LogEvent[];
  let problems: string[][];
  let ns: string;
  let nodeA: string;
  let nodeB: string;
  /** Hook between the scan and the release (the final re-validation's pod GET). */
  let beforeLivePod: ((namespace: string, name: string) => Promise<void>) | undefined;

  const waitLog = (
    msg: string,
    match: (f: LogFields) => boolean = () => true,
    timeoutMs = 30_000,
  ) =>
    nextEvent<LogEvent>(
      logs,
      'log',
      (l) => l.msg === msg && match(l.fields),
      timeoutMs,
      `log "${msg}"`,
    );
  const waitPass = (match: (r: GcPassReport) => boolean, what: string) =>
    nextEvent<GcPassReport>(gc.events, 'pass', match, 30_000, what);
  /** Waits for a pass that started after now. */
  const nextPass = async (): Promise<GcPassReport> => {
    const after = gc.passes();
    return nextEvent<GcPassReport>(
      gc.events,
      'pass',
      () => gc.passes() > after + 1,
      30_000,
      'a full pass after now',
    );
  };
  const allocated = async (ip: string): Promise<string | undefined> =>
    ipam.getAssignmentAttributes(ip).then(
      (a) => a.handleId,
      () => undefined,
    );

  beforeEach(async () => {
    seq++;
    store = await openStore(target);
    ipam = createIpamClient({ datastore: store.datastore });
    await ipam.pools.create({
      metadata: { name: 'pool' },
      spec: { cidr: '10.64.0.0/24', blockSize: 29 },
    });
    ns = `gc-${target.name}-${seq}`;
    nodeA = `${target.name}-${seq}-a`;
    nodeB = `${target.name}-${seq}-b`;
    await createNamespace(kube.core, ns);
    for (const n of [nodeA, nodeB]) {
      await createNode(kube.core, n);
      // On the Kubernetes store the Calico Node is the Kubernetes Node, already there.
      await ipam.nodes.create({ metadata: { name: n } }).catch((e: unknown) => {
        if (!isIpamError(e, 'AlreadyExists')) throw e;
      });
    }
    logs = new EventEmitter();
    lines = [];
    problems = [];
    const logger: Logger = {
      log: (level, msg, fields = {}) => {
        const e = { level, msg, fields };
        lines.push(e);
        logs.emit('log', e);
      },
    };
    beforeLivePod = undefined;
    gc = createIpamGcController({
      settings: ipamGcSettings({
        leakGracePeriodMs: GRACE_MS,
        batchWindowMs: 100,
        fullScanIntervalMs: 1000,
        backoffBaseMs: 200,
      }),
      checkConsistency: true,
      deleteCalicoNodes: target.name !== 'kubernetes',
      wrapLiveLookups: (live) => ({
        ...live,
        pod: async (namespace, name) => {
          await beforeLivePod?.(namespace, name);
          return live.pod(namespace, name);
        },
      }),
    });
    gc.events.on('problems', (p: string[]) => problems.push(p));
    const mirrored = createMirroredDatastore(store.datastore);
    manager = await startControllerManager({
      controllers: [gc],
      kube,
      datastore: store.datastore,
      ipam: createIpamClient({ datastore: mirrored }),
      logger,
      leaderElection: {
        namespace: 'kube-system',
        name: `gc-test-${seq}`,
        retryPeriodMs: 200,
        renewDeadlineMs: 1500,
        leaseDurationMs: 2000,
      },
      listen: { host: '127.0.0.1', port: 0 },
    });
  });

  afterEach(async () => {
    await manager?.stop();
    await store?.stop();
    expect(problems).toEqual([]);
  });

  const assignPod = async (
    name: string,
    node: string,
    attrs?: Record<string, string>,
  ): Promise<string> => {
    const { v4 } = await ipam.autoAssign({
      num4: 1,
      hostname: node,
      handleId: `k8s-pod-network.${name}`,
      attrs: attrs ?? { namespace: ns, pod: name, node },
      intendedUse: 'Workload',
    });
    return v4.ips[0]!.split('/')[0]!;
  };

  it('reclaims the address of a pod deleted behind the CNI plugin after the grace period, and not before', async () => {
    const ip = await assignPod('web', nodeA);
    await createPod(kube.core, { namespace: ns, name: 'web', node: nodeA, ips: [ip] });
    await waitPass(
      (r) =>
        r.scannedNodes > 0 &&
        r.candidates === 0 &&
        gc.state.allocations.has(`k8s-pod-network.web/${ip}`),
      'the allocation judged valid',
    );
    await deletePod(kube.core, { namespace: ns, name: 'web' });
    const deletedAt = Date.now();
    await waitPass((r) => r.candidates === 1, 'the allocation a candidate');
    expect(await allocated(ip)).toBe('k8s-pod-network.web');
    const released = await waitLog('released leaked address', (f) => f.ip === ip);
    expect(Date.now() - deletedAt).toBeGreaterThanOrEqual(GRACE_MS);
    expect(released.fields).toMatchObject({
      handle: 'k8s-pod-network.web',
      pod: 'web',
      namespace: ns,
      node: nodeA,
      reason: 'grace-period-elapsed',
    });
    expect(await allocated(ip)).toBeUndefined();
    expect(await gc.compareWithStore()).toBe('');
  });

  it('does not release an address re-used by a new pod between the scan and the release', async () => {
    const ip = await assignPod('old', nodeA);
    beforeLivePod = async (_namespace, name) => {
      if (name !== 'old') return;
      beforeLivePod = undefined;
      // The CNI plugin releases the old pod's address and gives it to a new pod.
      await ipam.releaseByHandle('k8s-pod-network.old');
      await ipam.assignIp({
        ip,
        hostname: nodeA,
        handleId: 'k8s-pod-network.new',
        attrs: { namespace: ns, pod: 'new', node: nodeA },
      });
      await createPod(kube.core, { namespace: ns, name: 'new', node: nodeA, ips: [ip] });
    };
    await waitLog(
      'not released: an address changed since the scan (re-used); the block is judged again',
    );
    // Several passes later, the new pod's address is still its own.
    await waitPass(
      (r) => r.candidates === 0 && gc.state.allocations.has(`k8s-pod-network.new/${ip}`),
      'the new allocation judged valid',
    );
    await nextPass();
    expect(await allocated(ip)).toBe('k8s-pod-network.new');
    expect(lines.filter((l) => l.msg === 'released leaked address')).toEqual([]);
  });

  it('does not release a live pod whose allocation names a stale node', async () => {
    const ip = await assignPod('moved', nodeA); // the block and the attribute say node A...
    await createPod(kube.core, { namespace: ns, name: 'moved', node: nodeB, ips: [ip] }); // ...it runs on B
    const seenAt = Date.now();
    // Passes spanning twice the grace period.
    while (Date.now() - seenAt < 2 * GRACE_MS) {
      const r = await nextPass();
      expect(r.candidates).toBe(0);
    }
    expect(await allocated(ip)).toBe('k8s-pod-network.moved');
    expect(lines.filter((l) => l.msg === 'released leaked address')).toEqual([]);
  });

  it("cleans up a deleted node's pods, tunnel address, blocks and affinities", async () => {
    const pod = await assignPod('p', nodeA);
    const tunnel = await assignPod('tunnel', nodeA, { node: nodeA, type: 'vxlanTunnelAddress' });
    await createPod(kube.core, { namespace: ns, name: 'p', node: nodeA, ips: [pod] });
    await assignPod('q', nodeB);
    await createPod(kube.core, { namespace: ns, name: 'q', node: nodeB });
    await waitPass(
      (r) => r.scannedNodes >= 2 && gc.state.allocations.size === 3,
      'everything seen',
    );
    await deleteNode(kube.core, nodeA);
    await deletePod(kube.core, { namespace: ns, name: 'p' }); // as Kubernetes' pod GC does
    await waitLog(
      'cleaned up a deleted node: its blocks and affinities are released',
      (f) => f.node === nodeA,
    );
    expect(await allocated(pod)).toBeUndefined();
    expect(await allocated(tunnel)).toBeUndefined();
    expect((await store.datastore.list({ kind: 'BlockAffinity', host: nodeA })).items).toEqual([]);
    const blocks = (await store.datastore.list({ kind: 'IPAMBlock' })).items.map(
      (kv) => kv.value.affinity,
    );
    expect(blocks).toEqual([`host:${nodeB}`]);
    const calicoNodes = (await store.datastore.list({ kind: 'Node' })).items.map(
      (kv) => kv.key.name,
    );
    expect(calicoNodes).toContain(nodeB);
    expect(calicoNodes).not.toContain(nodeA);
    expect(await gc.compareWithStore()).toBe('');
  });

  it('frees an idle block in cooldown with the backstop', async () => {
    await ipam.setIpamConfig({ ...(await ipam.getIpamConfig()), ipCooldownSeconds: 2 });
    const ip = await assignPod('p', nodeA);
    await ipam.releaseByHandle('k8s-pod-network.p'); // cools down; nothing writes the block again
    await waitLog('freed cooled-down addresses of an idle block');
    const block = (await store.datastore.list({ kind: 'IPAMBlock' })).items[0]!.value;
    expect(block.allocations.every((a) => a === null)).toBe(true);
    expect(await allocated(ip)).toBeUndefined();
  });

  it('deletes orphan handles after the grace period', async () => {
    await assignPod('live', nodeA);
    await createPod(kube.core, { namespace: ns, name: 'live', node: nodeA });
    await store.datastore.create({
      key: { kind: 'IPAMHandle', handleId: 'k8s-pod-network.orphan' },
      value: { handleId: 'k8s-pod-network.orphan', block: { '10.64.0.0/29': 1 }, deleted: false },
    });
    const created = Date.now();
    await waitLog(
      'deleted an orphan handle: it held no address for longer than the grace period',
      (f) => f.handle === 'k8s-pod-network.orphan',
    );
    expect(Date.now() - created).toBeGreaterThanOrEqual(GRACE_MS);
    const handles = (await store.datastore.list({ kind: 'IPAMHandle' })).items.map(
      (kv) => kv.key.handleId,
    );
    expect(handles).toEqual(['k8s-pod-network.live']);
  });

  it('serves /metrics, /healthz and /readyz, and its state equals a fresh rebuild', async () => {
    await assignPod('m1', nodeA);
    await createPod(kube.core, { namespace: ns, name: 'm1', node: nodeA });
    await waitPass(
      (r) => r.scannedNodes > 0 && gc.state.allocations.size === 1,
      'the allocation seen',
    );
    const base = `http://${manager.address}`;
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect(await (await fetch(`${base}/readyz`)).text()).toBe('ok ipam-gc\n');
    const text = await (await fetch(`${base}/metrics`)).text();
    expect(text).toContain(`ipam_allocations_in_use{ippool="pool",node="${nodeA}"} 1`);
    expect(text).toContain('ipam_ippool_size{ippool="pool"} 256');
    expect(text).toContain('ipam_gc_leader 1');
    expect(await gc.compareWithStore()).toBe('');
  });
});
