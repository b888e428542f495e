import type {
  AllocationBlock,
  BlockAffinity,
  Datastore,
  IpamHandle,
  KVPair,
} from '@netledger/ipam-core';
import { blockAllocations, findBlockProblems } from '@netledger/ipam-core/block';

/** One allocated address as the blocks record it. */
interface Allocation {
  readonly ip: string;
  readonly block: string;
  /** The owning handle; undefined for an allocation without one. */
  readonly handleId: string | undefined;
}

/** Everything IPAM stores, read in one pass, with what is inconsistent in it. */
export interface IpamLedger {
  readonly blocks: ReadonlyMap<string, AllocationBlock>;
  /** Address -> allocation, over every block. */
  readonly allocations: ReadonlyMap<string, Allocation>;
  /** Handle -> block CIDR -> addresses the blocks hold for it. */
  readonly held: ReadonlyMap<string, ReadonlyMap<string, number>>;
  readonly handles: ReadonlyMap<string, IpamHandle>;
  readonly affinities: readonly KVPair<'BlockAffinity'>[];
  /** Block CIDR -> what `findBlockProblems` reports (only blocks with problems). */
  readonly blockProblems: Readonly<Record<string, string[]>>;
  /** Confirmed affinities whose block is missing or affine to someone else. */
  readonly affinityProblems: readonly string[];
  /**
   * Every (handle, block) where the handle's count and the blocks disagree, in either direction
   * (a missing handle counts 0).
   */
  readonly handleMismatches: readonly HandleMismatch[];
}

/** A handle whose count in a block differs from the addresses the block holds for it. */
interface HandleMismatch {
  readonly handleId: string;
  readonly block: string;
  readonly counted: number;
  readonly holds: number;
}

const affinityOf = (kv: KVPair<'BlockAffinity'>): string => `${kv.key.affinityType}:${kv.key.host}`;

const confirmed = (a: BlockAffinity): boolean => a.state === 'confirmed';

/**
 * Reads every block, handle and affinity and cross-checks them: block invariants, confirmed
 * affinities against their blocks, and handle counts against the allocations that name them.
 */
export async function readIpamLedger(ds: Datastore): Promise<IpamLedger> {
  const [blockList, handleList, affinityList] = await Promise.all([
    ds.list({ kind: 'IPAMBlock' }),
    ds.list({ kind: 'IPAMHandle' }),
    ds.list({ kind: 'BlockAffinity' }),
  ]);
  const blocks = new Map(blockList.items.map((kv) => [kv.key.cidr, kv.value]));
  const handles = new Map(handleList.items.map((kv) => [kv.value.handleId, kv.value]));

  const allocations = new Map<string, Allocation>();
  const held = new Map<string, Map<string, number>>();
  const blockProblems: Record<string, string[]> = {};
  for (const [cidr, block] of blocks) {
    const problems = findBlockProblems(block).map((p) => p.message);
    if (problems.length > 0) blockProblems[cidr] = problems;
    for (const { ip, handle: handleId } of blockAllocations(block)) {
      if (allocations.has(ip))
        blockProblems[cidr] = [...(blockProblems[cidr] ?? []), `${ip} twice`];
      allocations.set(ip, { ip, block: cidr, handleId });
      if (handleId === undefined) continue;
      const perBlock = held.get(handleId) ?? new Map<string, number>();
      perBlock.set(cidr, (perBlock.get(cidr) ?? 0) + 1);
      held.set(handleId, perBlock);
    }
  }

  const affinityProblems: string[] = [];
  for (const kv of affinityList.items) {
    if (!confirmed(kv.value)) continue;
    const block = blocks.get(kv.key.cidr);
    if (block?.affinity !== affinityOf(kv)) {
      affinityProblems.push(
        `confirmed ${affinityOf(kv)} on ${kv.key.cidr}, block affinity ${block ? String(block.affinity) : 'missing block'}`,
      );
    }
  }

  const handleMismatches: HandleMismatch[] = [];
  for (const handleId of new Set([...handles.keys(), ...held.keys()])) {
    const counted = handles.get(handleId)?.block ?? {};
    const holds = held.get(handleId) ?? new Map<string, number>();
    for (const cidr of new Set([...Object.keys(counted), ...holds.keys()])) {
      const c = counted[cidr] ?? 0;
      const h = holds.get(cidr) ?? 0;
      if (c !== h) handleMismatches.push({ handleId, block: cidr, counted: c, holds: h });
    }
  }

  return {
    blocks,
    allocations,
    held,
    handles,
    affinities: affinityList.items,
    blockProblems,
    affinityProblems,
    handleMismatches,
  };
}

/** Addresses the blocks hold for `handleId`, over every block. */
export function heldBy(ledger: IpamLedger, handleId: string): number {
  let n = 0;
  for (const c of ledger.held.get(handleId)?.values() ?? []) n += c;
  return n;
}
