// netledger-kube-controllers' LoadBalancer controller at scale, measured on the real process: the
// built bundle against the tests' kube-apiserver (tools/kube-test-apiserver) and an etcd store
// with one LoadBalancer pool. 1,000 Services are created at once and the clock runs until every
// one shows its address (the controller logs each status write); then every Service is checked to
// show one distinct address and the pool to hold exactly 1,000 allocations.
// `pnpm bench --filter=@netledger/kube-controllers-app`.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { writeBenchResults } from '@netledger/bench';
import { createEtcdDatastore } from '@netledger/datastore-etcd';
import { createIpamClient } from '@netledger/ipam-core';
import { startEtcd, startKubeApiserver } from '@netledger/testkit';
import { startReplica } from '../test/app-harness.js';
import type { LogLine, Replica } from '../test/app-harness.js';

const SERVICES = 1000;
/** Creations in flight at once: "at once" as a client (kubectl apply of a big list) would. */
const CREATORS = 32;
const NAMESPACE = 'bench-lb';
const TIMEOUT_MS = 600_000;
const appDir = process.cwd();

/** Resolves with the time of the status write that gave the last of `SERVICES` Services an address. */
function allAddressed(r: Replica): { done: Promise<number>; count: () => number } {
  const addressed = new Set<string>();
  const done = new Promise<number>((resolve, reject) => {
    const finish = (): void => {
      clearTimeout(timer);
      r.events.off('line', onLine);
      r.events.off('exit', onExit);
    };
    const timer = setTimeout(() => {
      finish();
      reject(new Error(`${addressed.size} of ${SERVICES} Services addressed in ${TIMEOUT_MS} ms`));
    }, TIMEOUT_MS);
    const onExit = (): void => {
      finish();
      reject(new Error(`the controller exited: ${r.stderr()}`));
    };
    const onLine = (l: LogLine): void => {
      if (l.level === 'error') console.error(JSON.stringify(l));
      if (l.msg !== 'set LoadBalancer status' || String(l.ingress) === '') return;
      addressed.add(String(l.service));
      if (addressed.size < SERVICES) return;
      finish();
      resolve(performance.now());
    };
    r.events.on('line', onLine);
    r.events.on('exit', onExit);
  });
  return { done, count: () => addressed.size };
}

const etcd = await startEtcd();
const api = await startKubeApiserver();
const ds = createEtcdDatastore({ endpoints: etcd.endpoints });
let replica: Replica | undefined;
try {
  execFileSync(process.execPath, ['build.mjs'], { cwd: appDir, stdio: 'inherit' });
  const ipam = createIpamClient({ datastore: ds });
  await ipam.pools.create({
    metadata: { name: 'lb' },
    spec: { cidr: '10.200.0.0/21', blockSize: 26, allowedUses: ['LoadBalancer'] },
  });
  const kc = new KubeConfig();
  kc.loadFromFile(api.kubeconfigPath);
  const core = kc.makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: NAMESPACE } } });
  const r = startReplica({
    name: 'lb-bench',
    bundle: join(appDir, 'dist', 'netledger-kube-controllers.mjs'),
    env: { DATASTORE_TYPE: 'etcdv3', ETCD_ENDPOINTS: etcd.endpoints.join(',') },
    argv: [
      '--kubeconfig',
      api.kubeconfigPath,
      '--metrics-listen',
      '127.0.0.1:0',
      '--log-level',
      'debug',
    ],
  });
  replica = r;
  // Started, leading and synced (on by default: the pool exists), nothing to do yet.
  await r.waitFor((l) => l.msg === 'LoadBalancer caches synced: assigning', 'synced', 120_000);
  await r.waitFor((l) => l.msg === 'became the leader', 'leading', 60_000);

  const watch = allAddressed(r);
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CREATORS }, async () => {
      while (next < SERVICES) {
        const i = next++;
        await core.createNamespacedService({
          namespace: NAMESPACE,
          body: {
            metadata: { name: `svc-${i}` },
            spec: { type: 'LoadBalancer', ports: [{ port: 80, protocol: 'TCP' }] },
          },
        });
      }
    }),
  );
  const createdSeconds = (performance.now() - t0) / 1000;
  console.log(
    `created ${SERVICES} Services in ${createdSeconds.toFixed(2)} s (${watch.count()} addressed by then)`,
  );
  const allSeconds = ((await watch.done) - t0) / 1000;

  // Check what was measured: every Service shows one address, all distinct, each allocated once.
  const list = await core.listNamespacedService({ namespace: NAMESPACE });
  const ips = list.items.flatMap((s) => (s.status?.loadBalancer?.ingress ?? []).map((e) => e.ip));
  if (ips.length !== SERVICES || new Set(ips).size !== SERVICES)
    throw new Error(`expected ${SERVICES} distinct addresses, got ${ips.length}`);
  const [pool] = await ipam.getUtilization({ pools: ['lb'] });
  if (Number(pool?.inUse) !== SERVICES)
    throw new Error(`expected ${SERVICES} allocations, got ${pool?.inUse}`);

  writeBenchResults('kube-controllers-load-balancer', {
    title: 'netledger-kube-controllers: LoadBalancer addresses for 1,000 Services',
    command: 'pnpm bench --filter=@netledger/kube-controllers-app',
    notes: `The built bundle against the tests' kube-apiserver and an etcd store (its HTTP gateway) with one LoadBalancer pool (/21, blocks of 64). ${SERVICES.toLocaleString('en')} Services of type LoadBalancer are created ${CREATORS} at a time; the clock starts before the first create and stops at the status write that gives the last one its address. Every Service is then checked to show one distinct address, and the pool to hold exactly ${SERVICES.toLocaleString('en')} allocations.`,
    results: [
      {
        name: `${SERVICES.toLocaleString('en')} LoadBalancer Services created at once: time until all have addresses`,
        value: allSeconds,
        unit: 's',
        better: 'lower',
      },
      {
        name: `the ${SERVICES.toLocaleString('en')} creations alone (${CREATORS} at a time)`,
        value: createdSeconds,
        unit: 's',
        better: 'lower',
      },
      {
        name: 'Services addressed per second',
        value: SERVICES / allSeconds,
        unit: '/s',
        better: 'higher',
      },
    ],
  });
} finally {
  if (replica && replica.child.exitCode === null && replica.child.signalCode === null) {
    replica.kill('SIGTERM');
    await replica.exited;
  }
  await ds.close();
  await api.stop();
  await etcd.stop();
}
