/** Per-item retry backoff: after each failure an item waits twice as long, up to a bound. */
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
  const items = new Map<string, { failures: number; untilMs: number }>();
  return {
    isBackedOff: (item, nowMs) => (items.get(item)?.untilMs ?? -Infinity) > nowMs,
    failed(item, nowMs) {
      const failures = (items.get(item)?.failures ?? 0) + 1;
      const delay = Math.min(options.maxMs, options.baseMs * 2 ** Math.min(failures - 1, 30));
      items.set(item, { failures, untilMs: nowMs + delay });
      return delay;
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
