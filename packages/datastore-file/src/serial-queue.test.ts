import { describe, expect, it } from 'vitest';
import { createSerialQueue } from './serial-queue.js';

describe('createSerialQueue', () => {
  it('runs tasks one at a time in call order, and a failure does not stop the queue', async () => {
    const queue = createSerialQueue();
    const log: string[] = [];
    const task =
      (name: string, fail = false) =>
      async () => {
        log.push(`start ${name}`);
        await new Promise((r) => setTimeout(r, 5));
        log.push(`end ${name}`);
        if (fail) throw new Error(name);
        return name;
      };
    const results = await Promise.allSettled([
      queue.run(task('a')),
      queue.run(task('b', true)),
      queue.run(task('c')),
    ]);
    await queue.drain();
    expect(log).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  });
});
