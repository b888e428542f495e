// What a revision would take away from containers that are using it right now: the leases of
// running containers it releases, and the bridges it deletes while links are still enslaved to
// them. A revision that drops any of these is refused unless the caller forces it, so a typo'd
// revision cannot cut running containers off.
import { DeviceError } from './device-error.js';
import type { Lease } from './lease.js';

/** Something in use that a revision would drop. */
export type InUseDrop =
  | { readonly kind: 'lease'; readonly lease: Lease }
  | {
      readonly kind: 'bridge';
      readonly pool: string;
      readonly bridge: string;
      /** The links enslaved to it (containers' veths), by name. */
      readonly ports: readonly string[];
    };

/**
 * The in-use things a revision drops: each released lease whose owner is running, then each
 * deleted bridge (`dropped`, with its current `ports`) that has a port. Pure; empty when nothing
 * in use is dropped.
 */
export function findInUseDrops(args: {
  readonly released: readonly Lease[];
  readonly running: ReadonlySet<string>;
  readonly dropped: readonly {
    readonly pool: string;
    readonly bridge: string;
    readonly ports: readonly string[];
  }[];
}): InUseDrop[] {
  return [
    ...args.released
      .filter((l) => args.running.has(l.owner))
      .map((lease) => ({ kind: 'lease' as const, lease })),
    ...args.dropped
      .filter((b) => b.ports.length > 0)
      .map((b) => ({ kind: 'bridge' as const, ...b })),
  ];
}

/** How many drops the refusal names before it counts the rest. */
const NAMED = 8;

function describeDrop(d: InUseDrop): string {
  if (d.kind === 'bridge')
    return `bridge ${d.bridge} of pool ${d.pool} (ports ${d.ports.join(', ')})`;
  const l = d.lease;
  return `lease ${l.address} of running container ${l.owner} (pool ${l.pool}, ${l.interface})`;
}

/**
 * The `DropsInUse` refusal of drops (at least one): one line naming what would be dropped (the
 * first few, then how many more) and how to apply the revision anyway.
 */
export function dropsInUseError(drops: readonly InUseDrop[]): DeviceError {
  const named = drops.slice(0, NAMED).map(describeDrop);
  if (drops.length > NAMED) named.push(`${drops.length - NAMED} more`);
  return new DeviceError(
    'DropsInUse',
    `the revision would drop what running containers use: ${named.join('; ')}; nothing was changed (force the apply to drop them: --force, or "force": true in the API)`,
  );
}
