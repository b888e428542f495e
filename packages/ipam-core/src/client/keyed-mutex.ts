/** Runs async work one at a time per key; work on different keys runs concurrently. */
export interface KeyedMutex {
  run<T>(key: string, work: () => Promise<T>): Promise<T>;
}

/**
 * Creates a {@link KeyedMutex}. The IPAM client serialises requests for one host this way, so a
 * burst of concurrent assigns in one process queues instead of burning the CAS retry budget
 * against itself.
 */
export function createKeyedMutex(): KeyedMutex {
  const tails = new Map<string, Promise<unknown>>();
  return {
    run<T>(key: string, work: () => Promise<T>): Promise<T> {
      const previous = tails.get(key) ?? Promise.resolve();
      const result = previous.then(work, work);
      const tail = result.then(
        () => undefined,
        () => undefined,
      );
      tails.set(key, tail);
      void tail.then(() => {
        if (tails.get(key) === tail) tails.delete(key);
      });
      return result;
    },
  };
}
