import { join } from 'node:path';
import { homedir } from 'node:os';
import { createDatastoreOpener } from '@netledger/datastore-config';
import { loadEtcdGrpc } from '@netledger/datastore-config/etcd-grpc';
import { createIpamClient } from '@netledger/ipam-core';
import { auditRawIpam } from './audit/audit-raw-ipam.js';
import type { RawAudit } from './audit/audit-raw-ipam.js';
import { ctlIpamCheck, releaseLeaksFromReport } from './ctl-check.js';
import { cniGc } from './plugin-run.js';
import type { ClientLedger } from './ledger.js';
import type { StoreUnderTest } from './store-targets.js';
import type { WorkerPlan } from './worker/worker-plan.js';
import { PLUGIN } from './workspace.js';

/** The suite's network, namespace and pool: /28 blocks, so hosts claim (and borrow) many. */
const NETWORK = 'rel-net';
export const NAMESPACE = 'rel';
const POOL = { cidr: '10.64.0.0/20', blockSize: 28 } as const;

/** `host-00` … */
export const hostName = (i: number): string => `host-${String(i).padStart(2, '0')}`;

/** An opener as a long-lived process's (the etcd HTTP gateway). */
export const suiteOpener = createDatastoreOpener({
  user: () => ({ uid: process.getuid?.(), home: homedir() }),
  etcd: { transport: 'http', loadGrpc: loadEtcdGrpc },
});

/** Creates the pool and one Node per host, through the library. */
export async function seedStore(target: StoreUnderTest, hosts: readonly string[]): Promise<void> {
  const ds = await suiteOpener.open(target.store);
  try {
    const ipam = createIpamClient({ datastore: ds });
    await ipam.pools.create({ metadata: { name: 'rel-pool' }, spec: { ...POOL } });
    for (const name of hosts) await ipam.nodes.create({ metadata: { name } });
  } finally {
    await ds.close();
  }
}

/** The container IDs that go through the plugin in a plan (their pods must exist on Kubernetes). */
export function cniContainerIds(plan: WorkerPlan): string[] {
  const ids: string[] = [];
  if (plan.cniEvery <= 0) return ids;
  for (let n = plan.firstOp; n < plan.firstOp + plan.ops; n++) {
    if (n % plan.cniEvery === 0) ids.push(`${plan.host}-${n}`);
  }
  return ids;
}

/** One host's plan on `target`. */
export function hostPlan(
  target: StoreUnderTest,
  o: { host: string; ops: number; seed: number; cniEvery: number } & Partial<WorkerPlan>,
): WorkerPlan {
  return {
    network: NETWORK,
    namespace: NAMESPACE,
    firstOp: 0,
    store: target.store,
    plugin: PLUGIN,
    netconf: {
      cniVersion: '1.0.0',
      name: NETWORK,
      type: 'netledger-ipam',
      ipam: {
        type: 'netledger-ipam',
        nodename: o.host,
        ipam_lock_file: join(target.dir, `${o.host}.lock`),
        log_level: 'error',
        ...target.netconfIpam,
      },
    },
    ...o,
  };
}

/** The end state of a store against what its clients were told. */
export interface Verdict {
  readonly audit: RawAudit;
  /** `netledgerctl ipam check`'s problem count. */
  readonly ctlProblems: number;
  readonly ctlOutput: string;
  /** Handles the clients hold whose addresses the store does not give them (leases lost). */
  readonly lost: readonly string[];
  /** Handles holding addresses in the store that no client holds (leaked; a GC reclaims them). */
  readonly unclaimed: readonly string[];
}

/** Audits the raw store, runs `netledgerctl ipam check`, and compares both with the ledger. */
export async function verifyStore(target: StoreUnderTest, ledger: ClientLedger): Promise<Verdict> {
  const audit = auditRawIpam(await target.readRaw());
  const check = await ctlIpamCheck(target.ctlEnv);
  const lost: string[] = [];
  for (const [handle, h] of ledger.held) {
    const stored = [...(audit.byHandle.get(handle) ?? [])].sort();
    if (stored.join(',') !== [...h.ips].sort().join(',')) {
      lost.push(`${handle}: told ${h.ips.join(' ')}, store holds ${stored.join(' ') || 'nothing'}`);
    }
  }
  const unclaimed = [...audit.byHandle.keys()].filter((h) => !ledger.held.has(h));
  return { audit, ctlProblems: check.problems, ctlOutput: check.output, lost, unclaimed };
}

/** What {@link gcAndVerify} found before and after recovering. */
export interface Recovery {
  /** The store as one CNI GC pass per host left it. */
  readonly afterGc: Verdict;
  /** Handles counting addresses no block holds after the GC (released by the leak clean-up). */
  readonly dangling: readonly string[];
  /** The final state (after the leak clean-up when there was anything dangling). */
  readonly verdict: Verdict;
}

/**
 * Recovery after faults: one CNI GC pass per host (valid attachments: what the ledger says the
 * host holds), then, for handles that name no allocation (no GC pass sees those), calicoctl's leak
 * clean-up; then the final verdict.
 */
export async function gcAndVerify(
  target: StoreUnderTest,
  ledger: ClientLedger,
  plans: readonly WorkerPlan[],
): Promise<Recovery> {
  for (const plan of plans) {
    const valid = [...ledger.held.values()].filter((h) => h.host === plan.host);
    await cniGc(
      plan,
      valid.map((h) => h.containerId),
    );
  }
  const afterGc = await verifyStore(target, ledger);
  const dangling = afterGc.audit.handleMismatches;
  if (dangling.length > 0) {
    await releaseLeaksFromReport(target.ctlEnv, join(target.dir, 'report.json'));
  }
  const verdict = dangling.length > 0 ? await verifyStore(target, ledger) : afterGc;
  return { afterGc, dangling, verdict };
}
