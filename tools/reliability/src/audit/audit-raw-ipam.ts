import { numberToIpv4, parseIpv4Cidr } from './ipv4.js';
import type { RawBlock, RawIpam } from './raw-ipam.js';

/** What a brute-force audit of a store's raw IPAM objects found. */
export interface RawAudit {
  /** Every allocated address and the handles holding it (one, unless it is held twice). */
  readonly held: ReadonlyMap<string, readonly string[]>;
  /** Addresses allocated more than once (in one block or in overlapping blocks). */
  readonly duplicates: readonly string[];
  /** A block's own bookkeeping gone wrong: ordinal lost or doubled, attribute missing. */
  readonly blockProblems: readonly string[];
  /** A handle whose per-block count disagrees with the allocations naming it. */
  readonly handleMismatches: readonly string[];
  /** Addresses held per handle, as the blocks say. */
  readonly byHandle: ReadonlyMap<string, readonly string[]>;
}

/** A block's internal problems: each ordinal exactly once in allocations or unallocated, attributes referenced. */
function blockBookkeeping(b: RawBlock): string[] {
  const problems: string[] = [];
  const { size } = parseIpv4Cidr(b.cidr);
  if (b.allocations.length !== size) {
    problems.push(`${b.cidr}: ${b.allocations.length} allocation slots for ${size} addresses`);
  }
  const seen = new Map<number, number>();
  b.allocations.forEach((a, ordinal) => {
    if (a !== null) seen.set(ordinal, (seen.get(ordinal) ?? 0) + 1);
  });
  for (const ordinal of b.unallocated) seen.set(ordinal, (seen.get(ordinal) ?? 0) + 1);
  for (let ordinal = 0; ordinal < size; ordinal++) {
    const n = seen.get(ordinal) ?? 0;
    if (n !== 1) problems.push(`${b.cidr}: ordinal ${ordinal} is free or allocated ${n} times`);
  }
  const attributes = b.attributes ?? [];
  const used = new Set<number>();
  for (const a of b.allocations) {
    if (a === null) continue;
    if (a < 0 || a >= attributes.length) problems.push(`${b.cidr}: attribute ${a} does not exist`);
    used.add(a);
  }
  attributes.forEach((_, i) => {
    if (!used.has(i)) problems.push(`${b.cidr}: attribute ${i} is referenced by no allocation`);
  });
  return problems;
}

/**
 * Audits a store's raw IPAM objects by brute force: lists every allocated address of every block
 * (deleted blocks included: a soft-deleted block still holding an address is a problem), finds
 * addresses held twice, checks each block's ordinals and attributes, and recounts every handle
 * from the blocks. Pure; IPv4 only.
 */
export function auditRawIpam(raw: RawIpam): RawAudit {
  const held = new Map<string, string[]>();
  const blockProblems: string[] = [];
  const counted = new Map<string, Map<string, number>>();
  const cidrs = new Set<string>();
  for (const b of raw.blocks) {
    if (cidrs.has(b.cidr)) blockProblems.push(`${b.cidr}: stored twice`);
    cidrs.add(b.cidr);
    blockProblems.push(...blockBookkeeping(b));
    const { base } = parseIpv4Cidr(b.cidr);
    b.allocations.forEach((a, ordinal) => {
      if (a === null) return;
      const handle = b.attributes?.[a]?.handle_id ?? '(no handle)';
      const ip = numberToIpv4(base + ordinal);
      held.set(ip, [...(held.get(ip) ?? []), handle]);
      const perBlock = counted.get(handle) ?? new Map<string, number>();
      perBlock.set(b.cidr, (perBlock.get(b.cidr) ?? 0) + 1);
      counted.set(handle, perBlock);
    });
  }
  const handleMismatches: string[] = [];
  const handles = new Map(
    raw.handles.filter((h) => h.deleted !== true).map((h) => [h.handleId, h]),
  );
  for (const [handleId, perBlock] of counted) {
    if (handleId === '(no handle)') continue;
    const h = handles.get(handleId);
    if (!h) {
      handleMismatches.push(
        `${handleId}: allocated in ${[...perBlock.keys()].join(', ')} but has no handle`,
      );
      continue;
    }
    for (const [cidr, n] of perBlock) {
      if (h.block[cidr] !== n) {
        handleMismatches.push(
          `${handleId}: ${cidr} holds ${n}, the handle says ${h.block[cidr] ?? 0}`,
        );
      }
    }
  }
  for (const h of handles.values()) {
    for (const [cidr, n] of Object.entries(h.block)) {
      if (n !== 0 && !counted.get(h.handleId)?.has(cidr)) {
        handleMismatches.push(
          `${h.handleId}: the handle says ${n} in ${cidr}, the block holds none`,
        );
      }
    }
  }
  const byHandle = new Map<string, string[]>();
  for (const [ip, hs] of held)
    for (const h of hs) byHandle.set(h, [...(byHandle.get(h) ?? []), ip]);
  return {
    held,
    duplicates: [...held].filter(([, hs]) => hs.length > 1).map(([ip]) => ip),
    blockProblems,
    handleMismatches,
    byHandle,
  };
}
