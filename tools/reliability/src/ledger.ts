import type { HeldHandle, WorkerEvent } from './worker/worker-plan.js';

/** A handle a host holds at the end, with the addresses it was told. */
export type HeldByClient = { readonly host: string; readonly ips: readonly string[] } & HeldHandle;

/** What the hosts were told: the handles each holds at the end, and the counts of calls. */
export interface ClientLedger {
  /** Handles held at the end (assigned and not released), with their addresses. */
  readonly held: ReadonlyMap<string, HeldByClient>;
  readonly assigned: number;
  readonly released: number;
  readonly failed: readonly Extract<WorkerEvent, { ev: 'failed' }>[];
  /** Addresses that two handles held at the end were both told (a duplicate the clients saw). */
  readonly toldTwice: readonly string[];
}

/**
 * Folds the hosts' events into {@link ClientLedger}. Each host's events are in its own order;
 * a handle belongs to one host, so hosts need no common order.
 */
export function foldEvents(events: readonly WorkerEvent[]): ClientLedger {
  const held = new Map<string, HeldByClient>();
  let assigned = 0;
  let released = 0;
  const failed: Extract<WorkerEvent, { ev: 'failed' }>[] = [];
  for (const e of events) {
    if (e.ev === 'assigned') {
      assigned++;
      held.set(e.handle, { host: e.host, ips: e.ips, containerId: e.containerId, via: e.via });
    } else if (e.ev === 'released') {
      released++;
      held.delete(e.handle);
    } else if (e.ev === 'failed') {
      failed.push(e);
    }
  }
  const seen = new Set<string>();
  const toldTwice: string[] = [];
  for (const h of held.values()) {
    for (const ip of h.ips) {
      if (seen.has(ip)) toldTwice.push(ip);
      seen.add(ip);
    }
  }
  return { held, assigned, released, failed, toldTwice };
}
