import { IpamError } from '@netledger/ipam-core';
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

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

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
    async retrying(attempt, retry = {}) {
      const deadline = Date.now() + options.dialTimeoutMs;
      let backoff = 25;
      for (;;) {
        assertOpen();
        try {
          return await attempt();
        } catch (e) {
          if (e instanceof IpamError) throw e;
          if (closed) throw new IpamError('Unavailable', 'datastore is closed', { cause: e });
          if (classifyEtcdError(e) !== 'retry' || Date.now() + backoff > deadline) {
            throw toIpamError(e, {
              endpoints: label,
              ...(retry.path !== undefined && { path: retry.path }),
              outcomeUnknown: retry.outcomeUnknown?.() ?? false,
            });
          }
          retry.onRetry?.();
          await delay(backoff);
          backoff = Math.min(backoff * 2, 500);
        }
      }
    },
    close() {
      if (closed) return;
      closed = true;
      kv.close();
    },
  };
}
