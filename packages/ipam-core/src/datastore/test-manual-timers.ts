import type { MirrorTimers } from './mirror-sync.js';

/** Timers a test fires by hand: what was asked for, and when. */
export interface ManualTimers extends MirrorTimers {
  /** The delays of the timers still pending, oldest first. */
  pending(): number[];
  /** Every delay ever asked for, in order. */
  readonly requested: number[];
  /** Runs the oldest pending timer. */
  fire(): void;
}

export function createManualTimers(): ManualTimers {
  let next = 0;
  const queue: { id: number; run: () => void; ms: number }[] = [];
  const requested: number[] = [];
  return {
    requested,
    setTimeout(run, ms) {
      const id = ++next;
      queue.push({ id, run, ms });
      requested.push(ms);
      return id;
    },
    clearTimeout(handle) {
      const i = queue.findIndex((t) => t.id === handle);
      if (i >= 0) queue.splice(i, 1);
    },
    pending: () => queue.map((t) => t.ms),
    fire() {
      const t = queue.shift();
      if (!t) throw new Error('no timer pending');
      t.run();
    },
  };
}
