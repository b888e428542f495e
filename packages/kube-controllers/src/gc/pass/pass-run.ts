import { errorText } from '../../logger.js';
import type { GcOperation, GcPassContext } from './gc-pass-context.js';

/** A failed write: its operation (the error counter's label) and its backoff item. */
interface FailedWrite {
  readonly operation: GcOperation;
  readonly item: string;
}

/**
 * What the phases of one pass share besides its context: the count of failed writes, the earliest
 * time the pass should run again, whether it may write, and the API's answers about nodes (each
 * node's existence is asked once per pass). One per pass; not reused.
 */
export class PassRun {
  /** Writes allowed for this pass: the replica led when the judging was done. */
  writes = false;
  errors = 0;
  nextDeadlineMs: number | undefined;
  private readonly liveNodes = new Map<string, Promise<boolean>>();

  constructor(readonly ctx: GcPassContext) {}

  /** Whether a write may start now: allowed for the pass, and the replica still leads. */
  mayWrite(): boolean {
    return this.writes && this.ctx.ports.isLeader();
  }

  /** Asks for the pass to run again no later than `ms`. */
  deadline(ms: number): void {
    if (this.nextDeadlineMs === undefined || ms < this.nextDeadlineMs) this.nextDeadlineMs = ms;
  }

  /** Counts a failed write, backs its item off and logs it with `fields`; the pass goes on. */
  fail(what: FailedWrite, e: unknown, fields = {}): void {
    const { operation, item } = what;
    this.errors++;
    this.ctx.observer?.error?.(operation);
    const delay = this.ctx.backoff.failed(item, this.ctx.nowMs);
    this.ctx.ports.logger.log('warn', `${operation} failed; retrying later`, {
      item,
      retryInMs: delay,
      error: errorText(e),
      ...fields,
    });
  }

  /** Whether the Kubernetes node exists, asked of the API itself once per pass. */
  nodeIsBack(k8sNode: string): Promise<boolean> {
    let p = this.liveNodes.get(k8sNode);
    if (!p) this.liveNodes.set(k8sNode, (p = this.ctx.ports.live.nodeExists(k8sNode)));
    return p;
  }
}
