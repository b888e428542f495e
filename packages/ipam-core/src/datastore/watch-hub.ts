import { IpamError } from '../errors.js';
import type { DatastoreKey } from '../model/keys.js';
import type { WatchEvent, WatchStream } from './datastore.js';

/** Options for {@link createWatchHub}. */
export interface WatchHubOptions {
  /** How many past events are kept for watches that start from a revision. */
  readonly historyLimit: number;
}

/** What a subscriber wants. */
interface Subscription {
  readonly matches: (key: DatastoreKey) => boolean;
  /** Deliver events with a revision greater than this. */
  readonly fromRevision: number;
  readonly signal?: AbortSignal;
}

/** Fan-out of store events to watchers, with bounded history for watches from a past revision. */
export interface WatchHub {
  /** Records an event and delivers it to matching watchers. Revisions must increase. */
  publish(event: WatchEvent): void;
  /** A stream of matching events after `fromRevision`; `WatchExpired` if that is past the history. */
  subscribe(subscription: Subscription): WatchStream;
  /** Ends every open stream. */
  closeAll(): void;
}

const keyOf = (e: WatchEvent): DatastoreKey => (e.type === 'deleted' ? e.key : e.kv.key);

/** Creates a {@link WatchHub}; used by the in-process and file stores. */
export function createWatchHub(options: WatchHubOptions): WatchHub {
  const history: WatchEvent[] = [];
  /** Revision of the newest event that fell out of the history (0: nothing dropped). */
  let dropped = 0;
  const listeners = new Set<{ push(e: WatchEvent): void; end(): void }>();

  return {
    publish(event) {
      history.push(event);
      if (history.length > options.historyLimit) dropped = Number(history.shift()!.revision);
      for (const l of listeners) l.push(event);
    },
    subscribe({ matches, fromRevision, signal }) {
      const queue: WatchEvent[] = [];
      let wake: (() => void) | undefined;
      let ended = false;
      let failure: IpamError | undefined;
      if (fromRevision < dropped) {
        failure = new IpamError(
          'WatchExpired',
          `watch revision ${fromRevision} has been compacted (oldest available: ${dropped})`,
        );
      } else {
        for (const e of history)
          if (Number(e.revision) > fromRevision && matches(keyOf(e))) queue.push(e);
      }
      const listener = {
        push(e: WatchEvent) {
          if (Number(e.revision) > fromRevision && matches(keyOf(e))) {
            queue.push(e);
            wake?.();
          }
        },
        end() {
          ended = true;
          listeners.delete(listener);
          wake?.();
        },
      };
      listeners.add(listener);
      signal?.addEventListener('abort', () => listener.end(), { once: true });
      if (signal?.aborted) listener.end();
      return {
        established: Promise.resolve(),
        close: () => listener.end(),
        async *[Symbol.asyncIterator]() {
          try {
            for (;;) {
              if (failure) throw failure;
              const next = queue.shift();
              if (next) {
                yield next;
                continue;
              }
              if (ended) return;
              await new Promise<void>((resolve) => (wake = resolve));
              wake = undefined;
            }
          } finally {
            listener.end();
          }
        },
      };
    },
    closeAll() {
      for (const l of [...listeners]) l.end();
    },
  };
}
