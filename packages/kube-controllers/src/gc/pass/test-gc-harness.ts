// Test helpers (not exported by the package): an IPAM client over the memory store with a manual
// clock, a GC state kept in step by re-listing the store, and pods/nodes as plain maps.
import type { VmLookup } from '@netledger/accounting';
import { createIpamClient, createMemoryDatastore } from '@netledger/ipam-core';
import type { Datastore, DatastoreKey, IpamClient } from '@netledger/ipam-core';
import { GC_STORE_KINDS, applyStoreChange } from '../apply-store-change.js';
import type { GcPorts, LiveLookups } from './gc-pass-context.js';
import type { GcPassReport } from './gc-pass.js';
import { runGcPass } from './gc-pass.js';
import { ipamGcSettings } from '../gc-settings.js';
import type { IpamGcSettings } from '../gc-settings.js';
import { GcState } from '../gc-state.js';
import { createItemBackoff } from '../../manager/item-backoff.js';
import type { ItemBackoff } from '../../manager/item-backoff.js';
import type { LogFields, LogLevel, Logger } from '../../logger.js';
import type { SlimPod } from '../../kube/slim-pod.js';
import { findStateProblems } from '../state-consistency.js';

export const MINUTE = 60_000;

/** A pod as the informer would hold it. */
export function pod(args: {
  namespace?: string;
  name: string;
  node: string;
  ips?: string[];
  uid?: string;
  phase?: string;
  reason?: string;
}): SlimPod {
  const ips = args.ips ?? [];
  return {
    metadata: {
      name: args.name,
      namespace: args.namespace ?? 'default',
      uid: args.uid ?? `uid-${args.name}`,
    },
    nodeName: args.node,
    podIp: ips[0] ?? '',
    podIps: ips,
    phase: args.phase ?? 'Running',
    reason: args.reason ?? '',
    endpointIps: ips,
  };
}

/** A captured log line. */
interface LogLine {
  readonly level: LogLevel;
  readonly msg: string;
  readonly fields: LogFields;
}

export interface GcHarness {
  readonly ds: Datastore;
  readonly ipam: IpamClient;
  readonly state: GcState;
  readonly clock: { now: () => number; advance(ms: number): void };
  readonly pods: Map<string, SlimPod>;
  readonly nodes: Set<string>;
  /** KubeVirt lookups by `namespace/vmi-name` (default: KubeVirt absent). */
  readonly vms: Map<string, VmLookup>;
  readonly logs: LogLine[];
  readonly backoff: ItemBackoff;
  settings: IpamGcSettings;
  leader: boolean;
  /** Called by the live pod lookup (the final re-validation) before it answers. */
  onLivePod?: (namespace: string, name: string) => Promise<void>;
  /** What the API says about a node (default: the cache's answer). */
  liveNodeExists?: (name: string) => boolean;
  reclaimed: string[];
  /** Brings the state in step with the store (as the watch would). */
  sync(): Promise<void>;
  /** Syncs, runs one pass, syncs again, checks the state's consistency. */
  pass(): Promise<GcPassReport>;
  /** Assigns one address to a pod on a node (as the CNI plugin does). */
  assign(args: {
    node: string;
    name: string;
    namespace?: string;
    handle?: string;
    attrs?: Record<string, string>;
    num6?: number;
  }): Promise<string[]>;
  addPod(p: SlimPod): void;
  deletePod(name: string, namespace?: string): void;
}

export async function createGcHarness(
  options: { settings?: Partial<IpamGcSettings>; startMs?: number } = {},
): Promise<GcHarness> {
  let now = options.startMs ?? Date.parse('2026-01-01T00:00:00Z');
  const clock = { now: () => now, advance: (ms: number) => void (now += ms) };
  const ds = createMemoryDatastore();
  const ipam = createIpamClient({ datastore: ds, clock });
  const state = new GcState();
  const pods = new Map<string, SlimPod>();
  const nodes = new Set<string>();
  const logs: LogLine[] = [];
  const logger: Logger = {
    log: (level, msg, fields = {}) => void logs.push({ level, msg, fields }),
  };
  const h: GcHarness = {
    ds,
    ipam,
    state,
    clock,
    pods,
    nodes,
    vms: new Map(),
    logs,
    backoff: createItemBackoff({ baseMs: 1000, maxMs: 60_000 }),
    settings: ipamGcSettings({
      leakGracePeriodMs: 15 * MINUTE,
      batchWindowMs: 0,
      ...options.settings,
    }),
    leader: true,
    reclaimed: [],
    sync: () => syncState(ds, state),
    async pass() {
      await h.sync();
      const report = await runGcPass({
        state,
        settings: h.settings,
        backoff: h.backoff,
        ports: harnessPorts(h, logger),
        nowMs: now,
        observer: { reclaimed: (t) => void h.reclaimed.push(t.ip) },
      });
      await h.sync();
      const problems = findStateProblems(state);
      if (problems.length > 0) throw new Error(`inconsistent GC state:\n${problems.join('\n')}`);
      return report;
    },
    async assign(a) {
      const namespace = a.namespace ?? 'default';
      await ipam.nodes.create({ metadata: { name: a.node } }).catch(() => undefined);
      const { v4, v6 } = await ipam.autoAssign({
        num4: 1,
        num6: a.num6 ?? 0,
        hostname: a.node,
        handleId: a.handle ?? `k8s-pod-network.${a.name}`,
        attrs: a.attrs ?? { namespace, pod: a.name, node: a.node },
        intendedUse: 'Workload',
      });
      return [...v4.ips, ...v6.ips].map((c) => c.split('/')[0]!);
    },
    addPod: (p) => void pods.set(`${p.metadata.namespace ?? ''}/${p.metadata.name}`, p),
    deletePod: (name, namespace = 'default') => void pods.delete(`${namespace}/${name}`),
  };
  return h;
}

/** Whether an address is allocated (not free, not cooling down) in the store. */
export async function isAllocated(ipam: IpamClient, ip: string): Promise<boolean> {
  try {
    await ipam.getAssignmentAttributes(ip);
    return true;
  } catch {
    return false;
  }
}

/** Brings the state in step with the store: every object put, every one gone deleted. */
async function syncState(ds: Datastore, state: GcState): Promise<void> {
  const seen = new Set<string>();
  for (const kind of GC_STORE_KINDS) {
    const { items } = await ds.list({ kind });
    for (const kv of items) {
      seen.add(JSON.stringify(kv.key));
      applyStoreChange(state, { type: 'put', kv: kv });
    }
  }
  const known: DatastoreKey[] = [
    ...[...state.blocks.keys()].map((cidr) => ({ kind: 'IPAMBlock' as const, cidr })),
    ...[...state.handles.values()].map((x) => x.key),
    ...[...state.pools.keys()].map((name) => ({ kind: 'IPPool' as const, name })),
    ...[...state.calicoNodes.keys()].map((name) => ({ kind: 'Node' as const, name })),
    ...[...state.reservations.keys()].map((name) => ({ kind: 'IPReservation' as const, name })),
  ];
  for (const key of known)
    if (!seen.has(JSON.stringify(key))) applyStoreChange(state, { type: 'delete', key });
}

/** The pass's ports over the harness's store, pods, nodes and VMs. */
function harnessPorts(h: GcHarness, logger: Logger): GcPorts {
  const live: LiveLookups = {
    pod: async (ns, name) => {
      await h.onLivePod?.(ns, name);
      return h.pods.get(`${ns}/${name}`);
    },
    nodeExists: async (name) => h.liveNodeExists?.(name) ?? h.nodes.has(name),
  };
  return {
    ipam: h.ipam,
    datastore: h.ds,
    cache: {
      kubernetesNodeExists: (name) => h.nodes.has(name),
      pod: (ns, name) => h.pods.get(`${ns}/${name}`),
      vm: (ns, name) => h.vms.get(`${ns}/${name}`) ?? 'kubevirtAbsent',
    },
    live,
    logger,
    isLeader: () => h.leader,
    deleteCalicoNodes: true,
  };
}
