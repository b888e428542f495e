import { parseCidr } from '@netledger/accounting';
import type { Cidr } from '@netledger/accounting';
import type { AllocationBlock, Datastore } from '@netledger/ipam-core';
import { blockAllocations } from '@netledger/ipam-core/block';
import type { CheckReport, ReportAllocation, ReportHandle } from './check-report.js';
import type { CheckedAllocation } from './checked-allocation.js';
import {
  checkedAllocation,
  formatAttrs,
  isWorkload,
  reportAllocation,
} from './checked-allocation.js';
import { readClusterInformation } from './cluster-information.js';
import type { KubeReader } from './kube-reader.js';
import { nodeTunnelIps } from './node-tunnel-ips.js';
import { runCheckScans } from './run-check-scans.js';
import { readServiceLoadBalancerIps } from './service-load-balancer-ips.js';

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

type Print = (line?: string) => void;

async function loadBlocks(
  datastore: Datastore,
  o: CheckOptions,
  p: Print,
): Promise<{ blocks: AllocationBlock[]; allocations: Map<string, CheckedAllocation[]> }> {
  p('Loading all IPAM blocks...');
  const blocks = (await datastore.list({ kind: 'IPAMBlock' })).items.map((kv) => kv.value);
  p(`Found ${blocks.length} IPAM blocks.`);
  const allocations = new Map<string, CheckedAllocation[]>();
  let numAllocs = 0;
  for (const b of blocks) {
    p(` IPAM block ${b.cidr} affinity=${b.affinity ?? '<none>'}:`);
    for (const allocation of blockAllocations(b)) {
      numAllocs++;
      const a = checkedAllocation(allocation, b.deleted);
      allocations.set(a.ip, [...(allocations.get(a.ip) ?? []), a]);
      if (o.showAllIps) p(`  ${a.ip} allocated; attrs ${formatAttrs(a.attr)}`);
    }
  }
  p(`IPAM blocks record ${numAllocs} allocations.`);
  p();
  return { blocks, allocations };
}

async function loadActivePools(datastore: Datastore, p: Print): Promise<Cidr[]> {
  p('Loading all IPAM pools...');
  const active = [];
  for (const { value: pool } of (await datastore.list({ kind: 'IPPool' })).items) {
    if (pool.spec.disabled === true) continue;
    p(`  ${pool.spec.cidr}`);
    active.push(parseCidr(pool.spec.cidr));
  }
  p(`Found ${active.length} active IP pools.`);
  p();
  return active;
}

/** Who uses which addresses: node tunnel addresses, then managed LoadBalancer Services'. */
async function loadRefs(
  datastore: Datastore,
  o: CheckOptions,
  p: Print,
): Promise<Map<string, string[]>> {
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
  const lb = o.kubernetes && (await readServiceLoadBalancerIps(o.kubernetes));
  if (!lb) {
    p('No configuration for LoadBalancer kubecontroller found, skipping service check');
  } else {
    for (const { ip, owner } of lb.ips) recordRef(ip, owner);
    p(`Found ${lb.services} service load balancer(s).`);
  }
  p();
  return refs;
}

function noteWorkloads(
  allocations: ReadonlyMap<string, CheckedAllocation[]>,
  o: { kubeconfig?: string; refs: number },
  p: Print,
): void {
  p('Loading all workload endpoints.');
  if (o.kubeconfig !== undefined) {
    p(`Reading workload endpoints through a kubeconfig (${o.kubeconfig}) is not available yet.`);
  }
  p('Found 0 workload IPs.');
  p(`Workloads and nodes are using ${o.refs} IPs.`);
  const assumed = [...allocations.values()]
    .flat()
    .filter((a) => a.tracked && isWorkload(a.kind) && !a.coolingDown);
  if (assumed.length > 0) {
    p(
      `Note: without workload endpoints, ${assumed.length} pod allocations are assumed to be in use.`,
    );
  }
  p();
}

async function loadHandles(datastore: Datastore, p: Print): Promise<Map<string, ReportHandle>> {
  p('Loading all handles');
  const handles = new Map<string, ReportHandle>();
  for (const kv of (await datastore.list({ kind: 'IPAMHandle' })).items) {
    handles.set(kv.value.handleId, {
      ID: kv.value.handleId,
      UID: kv.uid ?? null,
      Revision: kv.revision,
    });
  }
  return handles;
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
  p('Checking IPAM for inconsistencies...');
  p();
  const ci = await readClusterInformation(datastore);
  const { blocks, allocations } = await loadBlocks(datastore, o, p);
  const active = await loadActivePools(datastore, p);
  const refs = await loadRefs(datastore, o, p);
  noteWorkloads(
    allocations,
    { refs: refs.size, ...(o.kubeconfig !== undefined && { kubeconfig: o.kubeconfig }) },
    p,
  );
  const handles = await loadHandles(datastore, p);
  const { problems, leakedHandles } = runCheckScans(
    { blocks, allocations, refs, active, handles },
    {
      showAllIps: o.showAllIps,
      showProblems: o.showProblemIps || o.showAllIps,
      nowMs: o.nowMs,
      print: p,
    },
  );
  const reportAllocations: Record<string, ReportAllocation[]> = {};
  for (const [ip, list] of allocations) reportAllocations[ip] = list.map(reportAllocation);
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
