import type { Pool, PoolFamily, PoolRegistry } from './pool.js';

/** How one revision's pools differ from the previous one's, by pool name. */
export interface PoolDiff {
  readonly added: readonly Pool[];
  readonly removed: readonly Pool[];
  readonly changed: readonly { readonly before: Pool; readonly after: Pool }[];
  readonly unchanged: readonly Pool[];
}

function sameFamily(a: PoolFamily | undefined, b: PoolFamily | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.subnet === b.subnet && a.gateway === b.gateway && a.nat === b.nat;
}

/** True when two pools have the same definition (bridge, type and each family's subnet, gateway, NAT). */
export function samePool(a: Pool, b: Pool): boolean {
  return (
    a.bridge === b.bridge &&
    a.type === b.type &&
    sameFamily(a.ipv4, b.ipv4) &&
    sameFamily(a.ipv6, b.ipv6)
  );
}

/** Diffs two pool registries (a pool is matched by name; any field change makes it `changed`). */
export function diffPools(before: PoolRegistry, after: PoolRegistry): PoolDiff {
  const added: Pool[] = [];
  const changed: { before: Pool; after: Pool }[] = [];
  const unchanged: Pool[] = [];
  for (const pool of after.values()) {
    const old = before.get(pool.name);
    if (old === undefined) added.push(pool);
    else if (samePool(old, pool)) unchanged.push(pool);
    else changed.push({ before: old, after: pool });
  }
  const removed = [...before.values()].filter((p) => !after.has(p.name));
  return { added, removed, changed, unchanged };
}

/** The bridges a revision deletes: each removed pool's, and a changed pool's old one when it moves to another bridge. */
export function droppedBridges(
  diff: PoolDiff,
): { readonly pool: string; readonly bridge: string }[] {
  return [
    ...diff.removed.map((p) => ({ pool: p.name, bridge: p.bridge })),
    ...diff.changed
      .filter((c) => c.before.bridge !== c.after.bridge)
      .map((c) => ({ pool: c.before.name, bridge: c.before.bridge })),
  ];
}
