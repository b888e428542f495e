import type { ErrorBody } from './device-error.js';
import { DeviceError, toErrorBody } from './device-error.js';
import { EMPTY_LEASE_BOOK } from './lease.js';
import { planRevision } from './plan-revision.js';
import { planStart } from './plan-start.js';
import type { PoolSpec } from './pool.js';
import { toPoolSpec } from './pool.js';
import { formatLxcNetwork } from './render-lxc-network.js';
import type { BakedReservation } from './reserve-baked-addresses.js';
import type { RevisionFiles } from './revision.js';
import { parseRevision } from './revision.js';

/** What a revision would set up, or why it would be refused. */
export interface CheckReport {
  readonly ok: boolean;
  /** Set when the revision as a whole is refused (device.json). */
  readonly error: ErrorBody | undefined;
  readonly pools: readonly PoolSpec[];
  readonly reservations: readonly BakedReservation[];
  readonly containers: readonly {
    readonly name: string;
    readonly mode: string;
    readonly lxc?: string;
    readonly error?: ErrorBody;
  }[];
}

/**
 * Validates a revision offline, with no lease store and no host access: parses it, runs the
 * reservation walk and plans every container's start (in name order, from an empty book) to show
 * the LXC config it would get. `ok` is false when anything would be refused. Never throws a
 * `DeviceError`.
 */
export function checkRevision(files: RevisionFiles): CheckReport {
  let revision;
  try {
    revision = parseRevision(files);
  } catch (e) {
    if (!(e instanceof DeviceError)) throw e;
    return {
      ok: false,
      error: toErrorBody(e),
      pools: [],
      reservations: [],
      containers: [],
    };
  }
  const plan = planRevision(EMPTY_LEASE_BOOK, new Map(), revision);
  let book = plan.book;
  const containers: CheckReport['containers'][number][] = [];
  for (const entry of revision.containers.values()) {
    try {
      const start = planStart(book, revision, entry.name);
      book = start.book;
      containers.push({
        name: entry.name,
        mode: entry.network.mode,
        ...(start.config === undefined ? {} : { lxc: formatLxcNetwork(start.config) }),
      });
    } catch (e) {
      if (!(e instanceof DeviceError)) throw e;
      containers.push({
        name: entry.name,
        mode: entry.network.mode,
        error: toErrorBody(e),
      });
    }
  }
  return {
    ok: containers.every((c) => c.error === undefined),
    error: undefined,
    pools: [...revision.pools.values()].map(toPoolSpec),
    reservations: plan.reservations,
    containers,
  };
}
