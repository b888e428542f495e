import type { Datastore } from '@netledger/ipam-core';
import { blockAllocations, findBlockProblems, sanitizeHandle } from '@netledger/ipam-core/block';

/**
 * What is inconsistent in a store at rest (empty when sound): block invariants; handle counts
 * against the live allocations carrying that handle (host-reserved ordinals, which have no
 * sequence number, have no handle object); affinities against their blocks.
 */
export async function storeProblems(ds: Datastore): Promise<string[]> {
  const problems: string[] = [];
  const blocks = (await ds.list({ kind: 'IPAMBlock' })).items.map((kv) => kv.value);
  const handles = (await ds.list({ kind: 'IPAMHandle' })).items;
  const affinities = (await ds.list({ kind: 'BlockAffinity' })).items;

  const live = new Map<string, number>(); // `${handle} ${block}` -> live allocations
  for (const block of blocks) {
    for (const p of findBlockProblems(block)) problems.push(`block ${block.cidr}: ${p.message}`);
    for (const a of blockAllocations(block)) {
      if (a.coolingDown || a.handle === undefined) continue;
      if (block.sequenceNumberForAllocation[String(a.ordinal)] === undefined) continue;
      const key = `${sanitizeHandle(a.handle)} ${block.cidr}`;
      live.set(key, (live.get(key) ?? 0) + 1);
    }
    if (block.affinity !== undefined) {
      const [type, ...rest] = block.affinity.split(':');
      const host = rest.join(':');
      const aff = affinities.find(
        (a) => a.key.cidr === block.cidr && a.key.host === host && a.key.affinityType === type,
      );
      if (!aff)
        problems.push(`block ${block.cidr} is affine to ${block.affinity} with no affinity`);
    }
  }
  const counted = new Map<string, number>();
  for (const h of handles) {
    for (const [cidr, n] of Object.entries(h.value.block))
      counted.set(`${h.key.handleId} ${cidr}`, n);
  }
  for (const key of new Set([...live.keys(), ...counted.keys()])) {
    const want = live.get(key) ?? 0;
    const got = counted.get(key) ?? 0;
    if (want !== got) problems.push(`handle ${key}: counts ${got}, holds ${want}`);
  }
  for (const a of affinities) {
    if (a.value.state !== 'confirmed') {
      problems.push(`affinity ${a.key.host} ${a.key.cidr} left ${a.value.state}`);
      continue;
    }
    const block = blocks.find((b) => b.cidr === a.key.cidr);
    const want = `${a.key.affinityType}:${a.key.host}`;
    if (!block) problems.push(`affinity ${want} ${a.key.cidr} has no block`);
    else if (block.affinity !== want) {
      problems.push(
        `affinity ${want} ${a.key.cidr}: block is affine to ${block.affinity ?? 'nobody'}`,
      );
    }
  }
  return problems;
}
