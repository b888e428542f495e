// One host of the reliability suite, run as its own process: assigns and releases addresses
// through the CNI plugin executable and through ipam-core's client, printing one JSON line per
// call (WorkerEvent). Its plan is the first argument (JSON, WorkerPlan).
import { homedir } from 'node:os';
import { createDatastoreOpener } from '@netledger/datastore-config';
import { loadEtcdGrpc } from '@netledger/datastore-config/etcd-grpc';
import { createIpamClient } from '@netledger/ipam-core';
import { crashAtWrite } from './crash-at-write.js';
import { drainHost } from './drain-host.js';
import { assignOnce, releaseUntilDone } from './host-call.js';
import type { HostPhase, HostState } from './host-call.js';
import { seededRandom } from './seeded-random.js';
import type { HeldHandle, WorkerEvent, WorkerPlan } from './worker-plan.js';

const plan = JSON.parse(process.argv[2] ?? '') as WorkerPlan;
const emit = (e: WorkerEvent): void => {
  process.stdout.write(`${JSON.stringify(e)}\n`);
};

async function main(): Promise<void> {
  const opener = createDatastoreOpener({
    user: () => ({ uid: process.getuid?.(), home: homedir() }),
    etcd: { transport: 'http', loadGrpc: loadEtcdGrpc, ...plan.etcd },
  });
  const opened = await opener.open(plan.store);
  const phase: { current: HostPhase } = { current: 'assign' };
  const datastore = plan.crash ? crashAtWrite(opened, plan.crash, () => phase.current) : opened;
  const host: HostState = {
    plan,
    client: createIpamClient({ datastore }),
    emit,
    held: new Map<string, HeldHandle>((plan.held ?? []).map((h) => [h.containerId, h])),
    phase,
  };
  const random = seededRandom(plan.seed);

  // A restarted host first retries the releases its runtime would retry.
  for (const h of plan.redo ?? []) await releaseUntilDone(host, h);
  for (let n = plan.firstOp; n < plan.firstOp + plan.ops; n++) {
    const viaCni = plan.cniEvery > 0 && n % plan.cniEvery === 0;
    if (host.held.size > 0 && random() < (plan.releaseChance ?? 0.45)) {
      const all = [...host.held.values()];
      await releaseUntilDone(host, all[Math.floor(random() * all.length)]!);
    } else {
      await assignOnce(host, `${plan.host}-${n}`, viaCni ? 'cni' : 'lib');
    }
  }
  if (plan.drainAtEnd) await drainHost(host);
  await opened.close();
  emit({ ev: 'done', host: plan.host, t: Date.now() });
}

await main();
