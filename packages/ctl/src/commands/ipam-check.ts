import { cidrContainsIp, formatIp, parseCidr, parseIp } from '@netledger/accounting';
import type { AllocationAttribute, Datastore, Node } from '@netledger/ipam-core';
import type { AllocationKind, BlockAllocation } from '@netledger/ipam-core/block';
import { blockAllocations, findBlockProblems } from '@netledger/ipam-core/block';
import {
  isManagedLoadBalancer,
  loadBalancerControllerOf,
  slimService,
} from '@netledger/ipam-core/load-balancer';
import type { AssignIpsMode } from '@netledger/ipam-core/load-balancer';
import { CtlError } from '../ctl-error.js';
import type { CheckReport, ReportAllocation, ReportHandle } from './check-report.js';
import { readClusterInformation } from './cluster-information.js';

/** Reads Kubernetes API objects by path (datastore-k8s's `KubeObjectReader`): undefined for a 404. */
export interface KubeReader {
  get(path: string): Promise<Readonly<Record<string, unknown>> | undefined>;
  /** Which of Calico's CRD groups the cluster has (`crd.projectcalico.org/v1`, `projectcalico.org/v3`). */
  calicoApiGroup?(): Promise<string>;
}

/** Options of {@link checkIpam}. */
export interface CheckOptions {
  readonly showAllIps: boolean;
  /** Implied by `showAllIps`. */
  readonly showProblemIps: boolean;
  /** Written into the report; `ipam release` requires its own. */
  readonly version: string;
  /** A kubeconfig was given (reading workload endpoints through it is not available yet). */
  readonly kubeconfig?: string;
  /**
   * The Kubernetes API (the Kubernetes store's connection, or one opened from the kubeconfig):
   * the KubeControllersConfiguration `default` and the Services are read through it.
   */
  readonly kubernetes?: KubeReader;
  /** For `releasedAt in the future` (clock skew). */
  readonly nowMs: number;
}

/** What {@link checkIpam} found. */
export interface CheckResult {
  /** calicoctl's progress and findings, line by line. */
  readonly text: string;
  readonly report: CheckReport;
  readonly problems: number;
}

interface Tracked extends ReportAllocation {
  inUse: boolean;
  owners: string[] | null;
  readonly attr: AllocationAttribute | undefined;
  readonly kind: AllocationKind;
  readonly tracked: boolean;
}

/** Node spec fields holding tunnel addresses; Calico reads only the IPv4 ones (fixed here). */
const NODE_ADDRESS_FIELDS: readonly (readonly string[])[] = [
  ['ipv4VXLANTunnelAddr'],
  ['ipv6VXLANTunnelAddr'],
  ['wireguard', 'interfaceIPv4Address'],
  ['wireguard', 'interfaceIPv6Address'],
  ['bgp', 'ipv4IPIPTunnelAddr'],
];

function nodeTunnelIps(node: Node): string[] {
  const out: string[] = [];
  for (const path of NODE_ADDRESS_FIELDS) {
    let v: unknown = node.spec;
    for (const k of path)
      v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined;
    if (typeof v !== 'string' || v === '') continue;
    try {
      out.push(formatIp(parseIp(v.split('/')[0]!)));
    } catch {
      // Not an address: nothing can be allocated for it.
    }
  }
  return out;
}

const kvs = (m: Readonly<Record<string, string>> | undefined): string =>
  Object.keys(m ?? {})
    .sort()
    .map((k) => `${k}=${m![k]}`)
    .join(',');

/** calicoctl's `formatAttrs`: `Main:<handle> Extra:k=v,...[ Alternate:k=v,...]`. */
function formatAttrs(attr: AllocationAttribute | undefined): string {
  if (!attr) return '<missing>';
  let s = `Main:${attr.handleId ?? '<none>'} Extra:${kvs(attr.activeOwnerAttrs)}`;
  if (Object.keys(attr.alternateOwnerAttrs ?? {}).length > 0) {
    s += ` Alternate:${kvs(attr.alternateOwnerAttrs)}`;
  }
  return s;
}

/** A pod's or a VM's: assumed in use while workload endpoints cannot be read. */
const isWorkload = (kind: AllocationKind): boolean => kind === 'pod' || kind === 'vm';

function track(a: BlockAllocation, blockDeleted: boolean): Tracked {
  return {
    ip: a.ip,
    handle: a.kind === 'windows-reserved' ? undefined : a.handle,
    sequenceNumber: a.sequenceNumber,
    pod: a.attrs.pod,
    namespace: a.attrs.namespace,
    node: a.node ?? a.affinityHost,
    type: a.attrs.type,
    creationTimestamp: a.attrs.timestamp,
    inUse: false,
    borrowed: a.borrowed,
    coolingDown: a.coolingDown,
    owners: null,
    attr: a.attribute,
    kind: a.kind,
    tracked: a.attribute !== undefined && !blockDeleted,
  };
}

const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function canonicalIp(text: string): string | undefined {
  try {
    return formatIp(parseIp(text));
  } catch {
    return undefined;
  }
}

/**
 * The LoadBalancer controller's settings in the KubeControllersConfiguration `default`: undefined
 * when it or its CRD is absent, or it has no `controllers.loadBalancer` (calicoctl's test).
 */
async function loadBalancerConfig(
  kube: KubeReader,
): Promise<{ readonly assignIps: AssignIpsMode } | undefined> {
  // In the group of Calico's CRDs the cluster has (v1 when the reader cannot tell).
  const group = (await kube.calicoApiGroup?.()) ?? 'crd.projectcalico.org/v1';
  const kcc = await kube.get(`/apis/${group}/kubecontrollersconfigurations/default`);
  if (!kcc) return undefined;
  try {
    return loadBalancerControllerOf(kcc.spec);
  } catch (e) {
    throw new CtlError(
      'InvalidInput',
      `KubeControllersConfiguration default: ${(e as Error).message}`,
    );
  }
}

/** Every Service, listed in pages of 500. */
async function* listServices(kube: KubeReader): AsyncGenerator<unknown> {
  let token = '';
  do {
    const page = await kube.get(
      `/api/v1/services?limit=500${token ? `&continue=${encodeURIComponent(token)}` : ''}`,
    );
    yield* (page?.items as unknown[] | undefined) ?? [];
    const meta = page?.metadata as { continue?: unknown } | undefined;
    token = typeof meta?.continue === 'string' ? meta.continue : '';
  } while (token !== '');
}

/**
 * `ipam check` (calicoctl's `IPAMChecker.CheckIPAM`): cross-references every block allocation
 * with what uses addresses and reports, in calicoctl's words and order, leaked addresses (not
 * in use, not cooling down), in-use addresses outside every active pool or without an
 * allocation, handles no allocation names (orphaned), handles named by blocks but missing
 * (printed, not counted, as Calico) and structurally invalid blocks (Calico's exact messages).
 *
 * Users known from the datastore are node tunnel addresses (IPv4 and IPv6; Calico reads only
 * IPv4, so its v6 tunnel addresses show as leaked). As in calicoctl, LoadBalancer Services'
 * `status.loadBalancer.ingress` addresses are in use (owner: the Service's name) when the
 * KubeControllersConfiguration `default` configures the LoadBalancer controller
 * (`controllers.loadBalancer`) and `kubernetes` is given; the Services counted are the ones the
 * controller manages (`assignIPs`). Otherwise the service check is skipped, and LoadBalancer
 * allocations have no user. Workload endpoints are not read yet: allocations owned by a pod or VM
 * are assumed in use, never reported leaked. Windows-reserved addresses are in use ("Reserved for
 * Windows"). Read-only.
 */
export async function checkIpam(datastore: Datastore, o: CheckOptions): Promise<CheckResult> {
  const out: string[] = [];
  const p = (line = ''): void => void out.push(line + '\n');
  const showProblems = o.showProblemIps || o.showAllIps;
  p('Checking IPAM for inconsistencies...');
  p();
  const ci = await readClusterInformation(datastore);

  p('Loading all IPAM blocks...');
  const blocks = (await datastore.list({ kind: 'IPAMBlock' })).items;
  p(`Found ${blocks.length} IPAM blocks.`);
  const allocations = new Map<string, Tracked[]>();
  let numAllocs = 0;
  for (const { value: b } of blocks) {
    p(` IPAM block ${b.cidr} affinity=${b.affinity ?? '<none>'}:`);
    for (const allocation of blockAllocations(b)) {
      numAllocs++;
      const a = track(allocation, b.deleted);
      allocations.set(a.ip, [...(allocations.get(a.ip) ?? []), a]);
      if (o.showAllIps) p(`  ${a.ip} allocated; attrs ${formatAttrs(a.attr)}`);
    }
  }
  p(`IPAM blocks record ${numAllocs} allocations.`);
  p();

  p('Loading all IPAM pools...');
  const active = [];
  for (const { value: pool } of (await datastore.list({ kind: 'IPPool' })).items) {
    if (pool.spec.disabled === true) continue;
    p(`  ${pool.spec.cidr}`);
    active.push(parseCidr(pool.spec.cidr));
  }
  p(`Found ${active.length} active IP pools.`);
  p();

  const refs = new Map<string, string[]>();
  const recordRef = (ip: string, owner: string): void => {
    if (o.showAllIps) p(`  ${ip} belongs to ${owner}`);
    refs.set(ip, [...(refs.get(ip) ?? []), owner]);
  };
  p('Loading all nodes.');
  let numNodeIps = 0;
  for (const { value: node } of (await datastore.list({ kind: 'Node' })).items) {
    for (const ip of nodeTunnelIps(node)) {
      recordRef(ip, `Node(${node.metadata.name})`);
      numNodeIps++;
    }
  }
  p(`Found ${numNodeIps} node tunnel IPs.`);
  p();

  p('Loading all service load balancer IPs.');
  const lb = o.kubernetes && (await loadBalancerConfig(o.kubernetes));
  if (!o.kubernetes || !lb) {
    p('No configuration for LoadBalancer kubecontroller found, skipping service check');
  } else {
    let numLoadBalancers = 0;
    for await (const raw of listServices(o.kubernetes)) {
      const svc = slimService(raw);
      if (!isManagedLoadBalancer(svc, lb.assignIps)) continue;
      numLoadBalancers++;
      for (const e of svc.ingress) {
        const ip = canonicalIp(e.ip ?? '');
        if (ip !== undefined) recordRef(ip, svc.metadata.name);
      }
    }
    p(`Found ${numLoadBalancers} service load balancer(s).`);
  }
  p();

  p('Loading all workload endpoints.');
  if (o.kubeconfig !== undefined) {
    p(`Reading workload endpoints through a kubeconfig (${o.kubeconfig}) is not available yet.`);
  }
  p('Found 0 workload IPs.');
  p(`Workloads and nodes are using ${refs.size} IPs.`);
  const assumed = [...allocations.values()]
    .flat()
    .filter((a) => a.tracked && isWorkload(a.kind) && !a.coolingDown);
  if (assumed.length > 0) {
    p(
      `Note: without workload endpoints, ${assumed.length} pod allocations are assumed to be in use.`,
    );
  }
  p();

  p('Loading all handles');
  const handles = new Map<string, ReportHandle>();
  for (const kv of (await datastore.list({ kind: 'IPAMHandle' })).items) {
    handles.set(kv.value.handleId, {
      ID: kv.value.handleId,
      UID: kv.uid ?? null,
      Revision: kv.revision,
    });
  }

  p('Looking for top (up to 20) nodes by allocations...');
  const byNode = new Map<string, number>();
  for (const list of allocations.values())
    for (const a of list) byNode.set(a.node ?? '', (byNode.get(a.node ?? '') ?? 0) + 1);
  const nodes = [...byNode.keys()].sort(
    (x, y) => byNode.get(y)! - byNode.get(x)! || compareText(x, y),
  );
  for (const n of nodes.slice(0, 20)) p(`  ${n} has ${byNode.get(n)} allocations`);
  if (nodes.length > 0) {
    p(
      `Node with most allocations has ${byNode.get(nodes[0]!)}; median is ${byNode.get(nodes[Math.floor(nodes.length / 2)]!)}`,
    );
  }
  p();

  let problems = 0;
  p('Scanning for IPs that are allocated but not actually in use...');
  let leaked = 0;
  for (const ip of [...allocations.keys()].sort(compareText)) {
    const list = allocations.get(ip)!;
    const owners = refs.get(ip) ?? [];
    for (const a of list) {
      const referenced = owners.length > 0;
      if (a.coolingDown) a.inUse = false;
      else if (!a.tracked) a.inUse = referenced;
      else a.inUse = referenced || isWorkload(a.kind) || a.kind === 'windows-reserved';
      const own = [...owners];
      if (a.tracked && a.inUse && a.kind === 'windows-reserved') own.push('Reserved for Windows');
      a.owners = own.length > 0 ? own : null;
    }
    if (list.some((a) => a.inUse || a.coolingDown)) continue;
    if (showProblems) for (const a of list) p(`  ${ip} leaked; attrs ${formatAttrs(a.attr)}`);
    leaked++;
  }
  problems += leaked;
  p(`Found ${leaked} IPs that are allocated in IPAM but not actually in use.`);

  p('Scanning for IPs that are in use by a workload or node but not allocated in IPAM...');
  let notInPool = 0;
  let notAllocated = 0;
  for (const ip of [...refs.keys()].sort(compareText)) {
    const owners = refs.get(ip)!;
    if (showProblems && owners.length > 1) p(`  ${ip} has multiple owners.`);
    if (allocations.has(ip)) continue;
    const addr = parseIp(ip);
    if (!active.some((c) => c.version === addr.version && cidrContainsIp(c, addr))) {
      if (showProblems)
        for (const r of owners) p(`  ${ip} in use by ${r} is not in any active IP pool.`);
      notInPool++;
      continue;
    }
    if (showProblems) {
      for (const r of owners)
        p(`  ${ip} in use by ${r} and in active IPAM pool but has no IPAM allocation.`);
    }
    notAllocated++;
  }
  problems += notInPool + notAllocated;
  p(`Found ${notInPool} in-use IPs that are not in active IP pools.`);
  p(
    `Found ${notAllocated} in-use IPs that are in active IP pools but have no corresponding IPAM allocation.`,
  );
  p();

  const inUseHandles = new Set<string>();
  for (const list of allocations.values())
    for (const a of list) if (a.handle) inUseHandles.add(a.handle);
  p('Scanning for IPAM handles with no matching IPs...');
  const leakedHandles: ReportHandle[] = [];
  let goodHandles = 0;
  for (const id of [...handles.keys()].sort(compareText)) {
    if (inUseHandles.has(id)) {
      goodHandles++;
      continue;
    }
    if (o.showAllIps) p(`  ${id} doesn't have any active IPs.`);
    leakedHandles.push(handles.get(id)!);
  }
  problems += leakedHandles.length;
  p(
    `Found ${leakedHandles.length} handles with no matching IPs (and ${goodHandles} handles with matches).`,
  );

  p('Scanning for IPs with missing handle...');
  let missing = 0;
  for (const id of [...inUseHandles].sort(compareText)) {
    if (handles.has(id)) continue;
    if (showProblems) p(`  ${id} is in use in a block but doesn't exist.`);
    missing++;
  }
  p(`Found ${missing} handles mentioned in blocks with no matching handle resource.`);

  p('Validating IPAMBlock structures...');
  let invalid = 0;
  for (const { value: b } of blocks) {
    const [first] = findBlockProblems(b, { nowMs: o.nowMs });
    if (first === undefined) continue;
    p(`  IPAMBlock BlockKey(cidr=${b.cidr}) is invalid: ${first.message}`);
    invalid++;
  }
  problems += invalid;
  p(`Found ${invalid} invalid IPAMBlocks.`);
  p(`Check complete; found ${problems} problems.`);

  const reportAllocations: Record<string, ReportAllocation[]> = {};
  for (const [ip, list] of allocations) {
    reportAllocations[ip] = list.map((a) => {
      const { attr: _attr, kind: _kind, tracked: _tracked, ...rest } = a;
      return rest;
    });
  }
  return {
    text: out.join(''),
    problems,
    report: {
      version: o.version,
      clusterGUID: ci?.value.spec.clusterGUID ?? '',
      datastoreLocked: ci?.value.spec.datastoreReady === false,
      clusterInformationRevision: ci?.revision ?? '',
      clusterType: ci?.value.spec.clusterType ?? '',
      allocations: reportAllocations,
      leakedHandles,
    },
  };
}
