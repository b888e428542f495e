import type { IBackoff } from 'cockatiel';
import { ExponentialBackoff, noJitterGenerator } from 'cockatiel';

/**
 * Per-item retry backoff, as client-go's per-item exponential workqueue rate limiter: after each
 * failure an item waits twice as long, up to a bound. The delays are cockatiel's
 * `ExponentialBackoff` (no jitter), one `next()` chain per item.
 */
export interface ItemBackoff {
  /** Whether the item is still waiting at `nowMs`. */
  isBackedOff(item: string, nowMs: number): boolean;
  /** Records a failure; returns the delay until the item may be tried again. */
  failed(item: string, nowMs: number): number;
  /** Forgets an item (it succeeded, or no longer exists). */
  succeeded(item: string): void;
  /** Forgets every item `keep` rejects (items that no longer exist), so the map cannot grow. */
  prune(keep: (item: string) => boolean): void;
  /** The earliest time an item comes out of backoff, or undefined when none waits. */
  nextRetryMs(): number | undefined;
  readonly size: number;
}

/** Creates a backoff of `baseMs` doubling per consecutive failure, at most `maxMs`. */
export function createItemBackoff(options: { baseMs: number; maxMs: number }): ItemBackoff {
  const delays = new ExponentialBackoff({
    generator: noJitterGenerator,
    initialDelay: options.baseMs,
    maxDelay: options.maxMs,
  });
  const items = new Map<string, { backoff: IBackoff<unknown>; untilMs: number }>();
  return {
    isBackedOff: (item, nowMs) => (items.get(item)?.untilMs ?? -Infinity) > nowMs,
    failed(item, nowMs) {
      const backoff = items.get(item)?.backoff.next(undefined) ?? delays.next();
      items.set(item, { backoff, untilMs: nowMs + backoff.duration });
      return backoff.duration;
    },
    succeeded: (item) => void items.delete(item),
    prune(keep) {
      for (const item of [...items.keys()]) if (!keep(item)) items.delete(item);
    },
    nextRetryMs() {
      let next: number | undefined;
      for (const { untilMs } of items.values())
        if (next === undefined || untilMs < next) next = untilMs;
      return next;
    },
    get size() {
      return items.size;
    },
  };
}
