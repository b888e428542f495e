// One host of the reliability suite, run as its own process: assigns and releases addresses
// through the CNI plugin executable and through ipam-core's client, printing one JSON line per
// call (WorkerEvent). Its plan is the first argument (JSON, WorkerPlan).
import { spawnSync } from 'node:child_process';
import { homedir } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { createDatastoreOpener } from '@netledger/datastore-config';
import { loadEtcdGrpc } from '@netledger/datastore-config/etcd-grpc';
import { createIpamClient, isIpamError } from '@netledger/ipam-core';
import type { IpamClient } from '@netledger/ipam-core';
import { cniEnv } from './cni-env.js';
import { crashAtWrite } from './crash-at-write.js';
import { seededRandom } from './seeded-random.js';
import type { HeldHandle, WorkerEvent, WorkerPlan } from './worker-plan.js';

const plan = JSON.parse(process.argv[2] ?? '') as WorkerPlan;
const emit = (e: WorkerEvent): void => {
  process.stdout.write(`${JSON.stringify(e)}\n`);
};
const bare = (cidr: string): string => cidr.split('/')[0]!;

interface CallResult {
  readonly ok: boolean;
  readonly ips?: string[];
  readonly code?: string;
  readonly message?: string;
}

/** One plugin run, as a runtime makes it: CNI_* variables and the netconf on stdin. */
function cni(command: 'ADD' | 'DEL', containerId: string): CallResult {
  const r = spawnSync(plan.plugin, [], {
    env: cniEnv({ command, containerId, namespace: plan.namespace }),
    input: JSON.stringify(plan.netconf),
    encoding: 'utf8',
  });
  let out: { ips?: { address: string }[]; code?: number; msg?: string } = {};
  try {
    out = JSON.parse(r.stdout) as typeof out;
  } catch {
    // Not JSON: reported below with the exit status.
  }
  if (r.status === 0) return { ok: true, ips: (out.ips ?? []).map((i) => bare(i.address)) };
  return {
    ok: false,
    code: `cni-${out.code ?? r.status ?? r.signal}`,
    message: out.msg ?? r.stderr.slice(-300),
  };
}

async function lib(call: () => Promise<string[] | undefined>): Promise<CallResult> {
  try {
    return { ok: true, ips: (await call()) ?? [] };
  } catch (e) {
    if (!isIpamError(e)) throw e;
    return { ok: false, code: e.code, message: e.message };
  }
}

async function main(): Promise<void> {
  const opener = createDatastoreOpener({
    user: () => ({ uid: process.getuid?.(), home: homedir() }),
    etcd: { transport: 'http', loadGrpc: loadEtcdGrpc, ...plan.etcd },
  });
  const opened = await opener.open(plan.store);
  let phase: 'assign' | 'release' | 'drain' = 'assign';
  const datastore = plan.crash ? crashAtWrite(opened, plan.crash, () => phase) : opened;
  const client: IpamClient = createIpamClient({ datastore });
  const random = seededRandom(plan.seed);
  const held = new Map<string, HeldHandle>((plan.held ?? []).map((h) => [h.containerId, h]));
  const handleOf = (containerId: string): string => `${plan.network}.${containerId}`;

  const assign = async (containerId: string, via: 'cni' | 'lib'): Promise<CallResult> =>
    via === 'cni'
      ? cni('ADD', containerId)
      : lib(async () => {
          const { v4 } = await client.autoAssign({
            num4: 1,
            hostname: plan.host,
            handleId: handleOf(containerId),
            attrs: { node: plan.host, namespace: plan.namespace, pod: containerId },
            intendedUse: 'Workload',
          });
          return v4.ips.map(bare);
        });
  const release = async (h: HeldHandle): Promise<CallResult> =>
    h.via === 'cni'
      ? cni('DEL', h.containerId)
      : lib(async () => {
          try {
            await client.releaseByHandle(handleOf(h.containerId));
          } catch (e) {
            // Released already (a retry after a crash that came after the release): done, as a
            // CNI DEL of nothing is.
            if (!isIpamError(e, 'DoesNotExist')) throw e;
          }
          return undefined;
        });

  const run = async (
    action: 'assign' | 'release',
    containerId: string,
    via: 'cni' | 'lib',
  ): Promise<boolean> => {
    const started = Date.now();
    phase = action;
    emit({ ev: 'started', host: plan.host, action, containerId, via, t: started });
    const done =
      action === 'assign' ? await assign(containerId, via) : await release({ containerId, via });
    // A short assign (no address) is a failure to the caller, as it is to a runtime.
    const r: CallResult =
      done.ok && action === 'assign' && done.ips?.length !== 1
        ? { ok: false, code: 'Short', message: `assigned ${done.ips?.length ?? 0} addresses` }
        : done;
    const base = {
      host: plan.host,
      containerId,
      handle: handleOf(containerId),
      via,
      t: Date.now(),
      ms: Date.now() - started,
    };
    if (r.ok && action === 'assign') {
      held.set(containerId, { containerId, via });
      emit({ ev: 'assigned', ...base, ips: r.ips ?? [] });
    } else if (r.ok) {
      held.delete(containerId);
      emit({ ev: 'released', ...base });
    } else {
      emit({ ev: 'failed', action, ...base, code: r.code ?? '?', message: r.message ?? '' });
      if (plan.backoffMs) await sleep(plan.backoffMs);
    }
    return r.ok;
  };
  // A runtime retries a failed DEL until it succeeds (its outcome may be unknown: the release may
  // have applied), so the host goes on holding the handle only if every attempt failed.
  const releaseUntilDone = async (h: HeldHandle): Promise<void> => {
    for (let attempt = 0; attempt < 100; attempt++) {
      if (await run('release', h.containerId, h.via)) return;
    }
  };

  // A restarted host first retries the releases its runtime would retry.
  for (const h of plan.redo ?? []) await releaseUntilDone(h);
  for (let n = plan.firstOp; n < plan.firstOp + plan.ops; n++) {
    const viaCni = plan.cniEvery > 0 && n % plan.cniEvery === 0;
    if (held.size > 0 && random() < (plan.releaseChance ?? 0.45)) {
      const all = [...held.values()];
      const h = all[Math.floor(random() * all.length)]!;
      await releaseUntilDone(h);
    } else {
      await run('assign', `${plan.host}-${n}`, viaCni ? 'cni' : 'lib');
    }
  }
  if (plan.drainAtEnd) {
    for (const h of [...held.values()]) await releaseUntilDone(h);
    phase = 'drain';
    emit({
      ev: 'started',
      host: plan.host,
      action: 'drain',
      containerId: '',
      via: 'lib',
      t: Date.now(),
    });
    const r = await lib(async () => {
      await client.releaseHostAffinities(
        { host: plan.host, affinityType: 'host' },
        { mustBeEmpty: true },
      );
      return undefined;
    });
    if (r.ok) emit({ ev: 'drained', host: plan.host, t: Date.now() });
    else
      emit({
        ev: 'failed',
        action: 'drain',
        host: plan.host,
        containerId: '',
        handle: '',
        via: 'lib',
        code: r.code!,
        message: r.message!,
        t: Date.now(),
        ms: 0,
      });
  }
  await opened.close();
  emit({ ev: 'done', host: plan.host, t: Date.now() });
}

await main();
