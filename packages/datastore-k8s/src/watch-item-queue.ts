// The hand-off between a watch's reader (which pushes as the server sends) and its consumer
// (which iterates at its own pace).
import type { WatchEvent } from '@netledger/ipam-core';

/** One thing for the consumer: an event, the error that ended the watch, or its end. */
type WatchItem = { event: WatchEvent } | { error: unknown } | { done: true };

/** A queue of {@link WatchItem}s. */
export interface WatchItemQueue {
  push(item: WatchItem): void;
  /**
   * The events in order until a `done` (the end) or an `error` (thrown); once `isClosed()`, no
   * further event is yielded. `onEnd` runs when iteration ends, however it ends.
   */
  iterate(o: { isClosed: () => boolean; onEnd: () => void }): AsyncGenerator<WatchEvent>;
}

/** Creates an empty {@link WatchItemQueue}. */
export function createWatchItemQueue(): WatchItemQueue {
  const queue: WatchItem[] = [];
  let wake: (() => void) | undefined;
  return {
    push(item) {
      queue.push(item);
      wake?.();
    },
    async *iterate({ isClosed, onEnd }) {
      try {
        for (;;) {
          const item = queue.shift();
          if (!item) {
            await new Promise<void>((r) => {
              wake = r;
            });
            wake = undefined;
            continue;
          }
          if ('done' in item) return;
          if ('error' in item) throw item.error;
          if (isClosed()) return;
          yield item.event;
        }
      } finally {
        onEnd();
      }
    },
  };
}
