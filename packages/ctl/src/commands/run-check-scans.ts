import { cidrContainsIp, parseIp } from '@netledger/accounting';
import type { Cidr } from '@netledger/accounting';
import type { AllocationBlock } from '@netledger/ipam-core';
import { findBlockProblems } from '@netledger/ipam-core/block';
import type { ReportHandle } from './check-report.js';
import type { CheckedAllocation } from './checked-allocation.js';
import { formatAttrs, isWorkload } from './checked-allocation.js';

/** What `ipam check` loaded, for its scans. */
export interface CheckData {
  readonly blocks: readonly AllocationBlock[];
  /** By address; the scans set each allocation's `inUse` and `owners`. */
  readonly allocations: ReadonlyMap<string, CheckedAllocation[]>;
  /** Who uses each address (nodes, Services), by address. */
  readonly refs: ReadonlyMap<string, readonly string[]>;
  /** The enabled pools' CIDRs. */
  readonly active: readonly Cidr[];
  readonly handles: ReadonlyMap<string, ReportHandle>;
}

/** Options of {@link runCheckScans}. */
export interface CheckScanOptions {
  readonly showAllIps: boolean;
  readonly showProblems: boolean;
  /** For `releasedAt in the future` (clock skew). */
  readonly nowMs: number;
  /** Writes one line of calicoctl's output. */
  readonly print: (line?: string) => void;
}

const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function printTopNodes(d: CheckData, o: CheckScanOptions): void {
  const p = o.print;
  p('Looking for top (up to 20) nodes by allocations...');
  const byNode = new Map<string, number>();
  for (const list of d.allocations.values())
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
}

/** Decides each allocation's `inUse` and `owners`; counts addresses with no allocation in use. */
function scanLeakedIps(d: CheckData, o: CheckScanOptions): number {
  const p = o.print;
  p('Scanning for IPs that are allocated but not actually in use...');
  let leaked = 0;
  for (const ip of [...d.allocations.keys()].sort(compareText)) {
    const list = d.allocations.get(ip)!;
    const owners = d.refs.get(ip) ?? [];
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
    if (o.showProblems) for (const a of list) p(`  ${ip} leaked; attrs ${formatAttrs(a.attr)}`);
    leaked++;
  }
  p(`Found ${leaked} IPs that are allocated in IPAM but not actually in use.`);
  return leaked;
}

/** Counts in-use addresses outside every active pool, and inside one but not allocated. */
function scanUnallocatedUses(d: CheckData, o: CheckScanOptions): number {
  const p = o.print;
  p('Scanning for IPs that are in use by a workload or node but not allocated in IPAM...');
  let notInPool = 0;
  let notAllocated = 0;
  for (const ip of [...d.refs.keys()].sort(compareText)) {
    const owners = d.refs.get(ip)!;
    if (o.showProblems && owners.length > 1) p(`  ${ip} has multiple owners.`);
    if (d.allocations.has(ip)) continue;
    const addr = parseIp(ip);
    if (!d.active.some((c) => c.version === addr.version && cidrContainsIp(c, addr))) {
      if (o.showProblems)
        for (const r of owners) p(`  ${ip} in use by ${r} is not in any active IP pool.`);
      notInPool++;
      continue;
    }
    if (o.showProblems) {
      for (const r of owners)
        p(`  ${ip} in use by ${r} and in active IPAM pool but has no IPAM allocation.`);
    }
    notAllocated++;
  }
  p(`Found ${notInPool} in-use IPs that are not in active IP pools.`);
  p(
    `Found ${notAllocated} in-use IPs that are in active IP pools but have no corresponding IPAM allocation.`,
  );
  p();
  return notInPool + notAllocated;
}

/** Handles no allocation names (leaked, counted) and names no handle has (printed, not counted). */
function scanHandles(d: CheckData, o: CheckScanOptions): ReportHandle[] {
  const p = o.print;
  const inUseHandles = new Set<string>();
  for (const list of d.allocations.values())
    for (const a of list) if (a.handle) inUseHandles.add(a.handle);
  p('Scanning for IPAM handles with no matching IPs...');
  const leakedHandles: ReportHandle[] = [];
  let goodHandles = 0;
  for (const id of [...d.handles.keys()].sort(compareText)) {
    if (inUseHandles.has(id)) {
      goodHandles++;
      continue;
    }
    if (o.showAllIps) p(`  ${id} doesn't have any active IPs.`);
    leakedHandles.push(d.handles.get(id)!);
  }
  p(
    `Found ${leakedHandles.length} handles with no matching IPs (and ${goodHandles} handles with matches).`,
  );
  p('Scanning for IPs with missing handle...');
  let missing = 0;
  for (const id of [...inUseHandles].sort(compareText)) {
    if (d.handles.has(id)) continue;
    if (o.showProblems) p(`  ${id} is in use in a block but doesn't exist.`);
    missing++;
  }
  p(`Found ${missing} handles mentioned in blocks with no matching handle resource.`);
  return leakedHandles;
}

function scanInvalidBlocks(d: CheckData, o: CheckScanOptions): number {
  const p = o.print;
  p('Validating IPAMBlock structures...');
  let invalid = 0;
  for (const b of d.blocks) {
    const [first] = findBlockProblems(b, { nowMs: o.nowMs });
    if (first === undefined) continue;
    p(`  IPAMBlock BlockKey(cidr=${b.cidr}) is invalid: ${first.message}`);
    invalid++;
  }
  p(`Found ${invalid} invalid IPAMBlocks.`);
  return invalid;
}

/**
 * `ipam check`'s scans over what it loaded, in calicoctl's order and words: the top nodes, leaked
 * addresses, in-use addresses outside active pools or unallocated, leaked and missing handles,
 * invalid blocks, and the total. Sets each allocation's `inUse` and `owners`; otherwise pure.
 * Returns the number of problems and the leaked handles.
 */
export function runCheckScans(
  d: CheckData,
  o: CheckScanOptions,
): { problems: number; leakedHandles: ReportHandle[] } {
  printTopNodes(d, o);
  let problems = scanLeakedIps(d, o);
  problems += scanUnallocatedUses(d, o);
  const leakedHandles = scanHandles(d, o);
  problems += leakedHandles.length;
  problems += scanInvalidBlocks(d, o);
  o.print(`Check complete; found ${problems} problems.`);
  return { problems, leakedHandles };
}
