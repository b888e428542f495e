import { IpamError } from '@netledger/ipam-core';
import { ExponentialBackoff, handleWhen, noJitterGenerator, retry } from 'cockatiel';
import type { EtcdKv } from './etcd-kv.js';
import { classifyEtcdError, toIpamError } from './map-etcd-error.js';

/** What {@link createEtcdSession} needs. */
export interface EtcdSessionOptions {
  /** The transport (gRPC or the HTTP gateway); the session closes it. */
  readonly kv: EtcdKv;
  readonly endpoints: readonly string[];
  readonly dialTimeoutMs: number;
}

/** Options for one {@link EtcdSession.retrying} run. */
interface RetryOptions {
  /** The etcd key the operation is about, for error messages. */
  readonly path?: string;
  /** Called before each retry after a connection-level failure (a write's outcome is now unknown). */
  readonly onRetry?: () => void;
  /** True once the operation may have been applied without an answer (for the final message). */
  readonly outcomeUnknown?: () => boolean;
}

/** An etcd transport plus the retry and error policy every operation shares. */
export interface EtcdSession {
  /** The transport; every answer it gives moves {@link EtcdSession.seenRevision}. */
  readonly kv: EtcdKv;
  /**
   * The highest store revision any answer of this session has carried (0n before the first). A
   * key created at or below it existed before anything this session sends next.
   */
  seenRevision(): bigint;
  /** The endpoints as one string, for messages. */
  readonly label: string;
  /**
   * Runs `attempt` until it settles. A connection-level failure (see `classifyEtcdError`) is retried
   * with backoff until `dialTimeoutMs` has passed since the first attempt, then surfaces as
   * `Unavailable` ("etcd at <endpoints> unreachable: ..."). `IpamError`s pass through at once.
   */
  retrying<T>(attempt: () => Promise<T>, options?: RetryOptions): Promise<T>;
  /** Throws `Unavailable` once the session is closed. */
  assertOpen(): void;
  close(): void;
}

/** Delays between attempts: 25 ms doubling to 500 ms, no jitter. */
const BACKOFF = { initialDelay: 25, maxDelay: 500, exponent: 2, generator: noJitterGenerator };
const backoff = new ExponentialBackoff(BACKOFF);

/** The delay the policy waits after `failed` attempts have failed (cockatiel's own sequence). */
const delayAfter = (failed: number): number => noJitterGenerator(failed - 1, BACKOFF)[0];

/**
 * Wraps a transport in the one retry policy. Transports never retry on their own: re-sending a
 * compare-and-swap transaction whose first attempt may have committed would turn a success into a
 * false conflict. Retries happen in {@link EtcdSession.retrying}, where writes resolve their outcome.
 */
export function createEtcdSession(options: EtcdSessionOptions): EtcdSession {
  const label = options.endpoints.join(',');
  let closed = false;
  let seen = 0n;
  const note = <R extends { readonly header: { readonly revision: string } }>(res: R): R => {
    const revision = BigInt(res.header.revision);
    if (revision > seen) seen = revision;
    return res;
  };
  const inner = options.kv;
  const kv: EtcdKv = {
    range: async (req) => note(await inner.range(req)),
    txn: async (req) => note(await inner.txn(req)),
    put: async (req) => note(await inner.put(req)),
    watch: (req, handlers) =>
      inner.watch(req, { ...handlers, onResponse: (res) => handlers.onResponse(note(res)) }),
    close: () => inner.close(),
  };

  const assertOpen = (): void => {
    if (closed) throw new IpamError('Unavailable', 'datastore is closed');
  };

  return {
    kv,
    label,
    seenRevision: () => seen,
    assertOpen,
    async retrying(attempt, retryOptions = {}) {
      const deadline = Date.now() + options.dialTimeoutMs;
      let attempts = 0;
      // Connection-level failures only, and only while the next attempt would start before the
      // deadline; everything else (an IpamError, a refusal, a closed session) ends the run.
      const retryable = (e: unknown): boolean =>
        !(e instanceof IpamError) &&
        !closed &&
        classifyEtcdError(e) === 'retry' &&
        Date.now() + delayAfter(attempts) <= deadline;
      const policy = retry(handleWhen(retryable), {
        maxAttempts: Number.POSITIVE_INFINITY,
        backoff,
      });
      policy.onRetry(() => retryOptions.onRetry?.());
      try {
        return await policy.execute(() => {
          attempts++;
          assertOpen();
          return attempt();
        });
      } catch (e) {
        if (e instanceof IpamError) throw e;
        if (closed) throw new IpamError('Unavailable', 'datastore is closed', { cause: e });
        throw toIpamError(e, {
          endpoints: label,
          ...(retryOptions.path !== undefined && { path: retryOptions.path }),
          outcomeUnknown: retryOptions.outcomeUnknown?.() ?? false,
        });
      }
    },
    close() {
      if (closed) return;
      closed = true;
      kv.close();
    },
  };
}
