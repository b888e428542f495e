import { setTimeout as sleep } from 'node:timers/promises';
import type { StartedDaemon } from './daemon-process.js';
import { KubeTestClusterError } from './kube-test-cluster-error.js';

/** Options for {@link waitUntil}. */
export interface WaitOptions {
  /** What is awaited, for the error message: "the node to be Ready". */
  readonly what: string;
  readonly timeoutMs: number;
  /** The daemons that must stay up meanwhile: one that exits fails the wait at once. */
  readonly daemons: readonly StartedDaemon[];
  readonly signal?: AbortSignal | undefined;
  readonly intervalMs?: number;
}

/**
 * Polls `check` until it returns `{ done: true }`. Throws START_FAILED with the daemon's log
 * tail as soon as one of `daemons` exits, or with the last `why` when `timeoutMs` passes; throws
 * the abort reason when `signal` aborts.
 */
export async function waitUntil(
  check: () => Promise<{ done: boolean; why?: string }>,
  o: WaitOptions,
): Promise<void> {
  const deadline = Date.now() + o.timeoutMs;
  for (;;) {
    o.signal?.throwIfAborted();
    const dead = o.daemons.find((d) => d.hasExited());
    if (dead) {
      throw new KubeTestClusterError(
        'START_FAILED',
        `${dead.record.name} exited while waiting for ${o.what} (${await dead.exited}); ` +
          `the end of ${dead.logFile}:\n${dead.logTail(40)}`,
      );
    }
    const result = await check();
    if (result.done) return;
    if (Date.now() > deadline) {
      throw new KubeTestClusterError(
        'START_FAILED',
        `timed out after ${o.timeoutMs / 1000} s waiting for ${o.what}` +
          (result.why ? `: ${result.why}` : ''),
      );
    }
    await sleep(o.intervalMs ?? 200);
  }
}
