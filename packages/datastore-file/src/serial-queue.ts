/** Runs async tasks one at a time, in call order. */
export interface SerialQueue {
  /** Runs `task` after every task queued before it has settled; its result or error is returned. */
  run<T>(task: () => Promise<T>): Promise<T>;
  /** Settles once every task queued so far has settled. */
  drain(): Promise<void>;
}

/** Creates a {@link SerialQueue}: the in-process half of the store's mutual exclusion. */
export function createSerialQueue(): SerialQueue {
  let tail: Promise<unknown> = Promise.resolve();
  return {
    run<T>(task: () => Promise<T>): Promise<T> {
      const result = tail.then(task, task);
      // Not dropped: the caller gets the error from `result`; the tail only orders the next task.
      tail = result.catch(() => undefined);
      return result;
    },
    async drain() {
      await tail;
    },
  };
}
