import type { IpamError, WatchEvent } from '@netledger/ipam-core';

/** The consumer side of a watch: events waiting to be read, and how the stream ends. */
export interface WatchQueue extends AsyncIterable<WatchEvent> {
  push(events: readonly WatchEvent[]): void;
  /** Ends the stream with `e` once the events already queued are read (the first failure wins). */
  fail(e: IpamError): void;
  /** Ends the stream without an error once the events already queued are read. */
  end(): void;
  readonly ended: boolean;
}

/**
 * Creates a watch's queue. Iterating yields the queued events, then throws the failure or
 * returns once ended; leaving the loop early calls `onLeave` (which should end the watch).
 */
export function createWatchQueue(onLeave: () => void): WatchQueue {
  const queue: WatchEvent[] = [];
  let failure: IpamError | undefined;
  let ended = false;
  let wake: (() => void) | undefined;
  const signal = (): void => wake?.();
  return {
    get ended() {
      return ended;
    },
    push(events) {
      queue.push(...events);
      signal();
    },
    fail(e) {
      failure ??= e;
      ended = true;
      signal();
    },
    end() {
      ended = true;
      signal();
    },
    async *[Symbol.asyncIterator]() {
      try {
        for (;;) {
          const next = queue.shift();
          if (next) {
            yield next;
            continue;
          }
          if (failure) throw failure;
          if (ended) return;
          await new Promise<void>((resolve) => (wake = resolve));
          wake = undefined;
        }
      } finally {
        onLeave();
      }
    },
  };
}
