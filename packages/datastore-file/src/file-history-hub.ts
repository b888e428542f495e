// The in-process hub a file store's watches subscribe to, fed from the history the file keeps:
// seeded by the first watch, then published to with each newer snapshot this process sees.
import { IpamError } from '@netledger/ipam-core';
import { createWatchHub, matchesListOptions } from '@netledger/ipam-core/adapter';
import type { ListOptions, WatchOptions, WatchStream } from '@netledger/ipam-core';
import type { WatchHub } from '@netledger/ipam-core/adapter';
import { toWatchEvent } from './history-events.js';
import type { StoreSnapshot } from './store-snapshot.js';

/** The hub over a file's history. */
export interface FileHistoryHub {
  /**
   * A stream of matching events after `from` (default `currentRevision`); the `WatchExpired`
   * error instead when `from` is older than the history kept. `InvalidArgument` is thrown for a
   * revision that is not one.
   */
  subscribe(
    options: ListOptions,
    watchOptions: WatchOptions,
    currentRevision: number,
  ): WatchStream | IpamError;
  /**
   * Publishes `next`'s newer history. A replaced file, or more changes than the history keeps
   * since the last look, is told to `expire` (`WatchExpired`: the streams then list again).
   */
  sync(next: StoreSnapshot): void;
  /** Ends every stream. */
  closeAll(): void;
}

function parseRevision(revision: string): number {
  const n = Number(revision);
  if (!/^\d+$/.test(revision) || !Number.isSafeInteger(n)) {
    throw new IpamError(
      'InvalidArgument',
      `watch revision ${JSON.stringify(revision)} is not a revision`,
    );
  }
  return n;
}

/** A hub over `initial`'s history, keeping `historyLimit` events; `expire` ends the open streams. */
export function createFileHistoryHub(o: {
  readonly historyLimit: number;
  readonly initial: StoreSnapshot;
  readonly expire: (error: IpamError) => void;
}): FileHistoryHub {
  /** Created by the first watch: until then nothing decodes the history (a one-shot process never watches). */
  let hub: WatchHub | undefined;
  /** The newest snapshot seen; seeds the hub when the first watch opens. */
  let latest = o.initial;
  /** Watches from a revision below this cannot be served: events were compacted away. */
  let floor = 0;
  let lastPublished = 0;
  let storeId = '';
  const seed = (snapshot: StoreSnapshot): WatchHub => {
    const fresh = createWatchHub({ historyLimit: Math.max(1, o.historyLimit) });
    for (const r of snapshot.history) fresh.publish(toWatchEvent(r));
    floor = snapshot.compactedRevision;
    lastPublished = snapshot.revision;
    storeId = snapshot.storeId;
    hub = fresh;
    return fresh;
  };
  return {
    subscribe(listOptions, watchOptions, currentRevision) {
      const active = hub ?? seed(latest);
      const from =
        watchOptions.revision === undefined
          ? currentRevision
          : parseRevision(watchOptions.revision);
      if (from < floor) {
        return new IpamError(
          'WatchExpired',
          `watch revision ${from} has been compacted (oldest available: ${floor})`,
        );
      }
      return active.subscribe({
        matches: (key) => matchesListOptions(key, listOptions),
        fromRevision: from,
        ...(watchOptions.signal && { signal: watchOptions.signal }),
      });
    },
    sync(next) {
      latest = next;
      if (!hub) return;
      if (next.storeId !== storeId || next.revision < lastPublished) {
        o.expire(new IpamError('WatchExpired', 'the datastore file was replaced; list again'));
        seed(next);
        return;
      }
      if (next.revision === lastPublished) return;
      if (next.compactedRevision > lastPublished) {
        o.expire(
          new IpamError(
            'WatchExpired',
            `missed changes after revision ${lastPublished}: the file keeps history from ${next.compactedRevision}`,
          ),
        );
        floor = next.compactedRevision;
      }
      for (const r of next.history) if (r.revision > lastPublished) hub.publish(toWatchEvent(r));
      lastPublished = next.revision;
    },
    closeAll: () => hub?.closeAll(),
  };
}
