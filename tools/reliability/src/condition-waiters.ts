/** Promises that resolve once a condition holds, checked again on every {@link notify}. */
export interface ConditionWaiters {
  /** Resolves once `done()` is true (at once if it is already). */
  until(done: () => boolean): Promise<void>;
  /** Checks every pending condition again: call it after a change they may wait for. */
  notify(): void;
}

/** Creates an empty set of waiters (no timers: a condition is checked only when notified). */
export function createConditionWaiters(): ConditionWaiters {
  const waiters = new Set<() => void>();
  return {
    until: (done) =>
      new Promise((resolve) => {
        const check = (): void => {
          if (!done()) return;
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
        check();
      }),
    notify: () => {
      for (const w of [...waiters]) w();
    },
  };
}
