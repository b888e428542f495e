import { IpamError } from '@netledger/ipam-core';
import { Etcd3, isRecoverableError } from 'etcd3';
import type { IOptions } from 'etcd3';
import { ConsecutiveBreaker, circuitBreaker, handleWhen, noop } from 'cockatiel';
import { classifyEtcdError, toIpamError } from './map-etcd-error.js';
import type { TlsMaterial } from './load-tls-material.js';

/** What {@link createEtcdSession} needs. */
export interface EtcdSessionOptions {
  readonly endpoints: readonly string[];
  readonly tls: TlsMaterial | undefined;
  readonly username: string | undefined;
  readonly password: string | undefined;
  readonly dialTimeoutMs: number;
  readonly requestTimeoutMs: number;
}

/** Options for one {@link EtcdSession.retrying} run. */
export interface RetryOptions {
  /** The etcd key the operation is about, for error messages. */
  readonly path?: string;
  /** Called before each retry after a connection-level failure (a write's outcome is now unknown). */
  readonly onRetry?: () => void;
  /** True once the operation may have been applied without an answer (for the final message). */
  readonly outcomeUnknown?: () => boolean;
}

/** A connected etcd client plus the retry and error policy every operation shares. */
export interface EtcdSession {
  readonly client: Etcd3;
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
 * Creates the etcd3 client. etcd3's global retry policy is disabled: it would re-send a
 * compare-and-swap transaction whose first attempt may have committed, turning a success into a
 * false conflict. Retries happen in {@link EtcdSession.retrying}, where writes resolve their outcome.
 */
export function createEtcdSession(options: EtcdSessionOptions): EtcdSession {
  const label = options.endpoints.join(',');
  const etcdOptions: IOptions = {
    hosts: [...options.endpoints],
    dialTimeout: options.dialTimeoutMs,
    defaultCallOptions: (ctx) =>
      ctx.isStream ? {} : { deadline: Date.now() + options.requestTimeoutMs },
    faultHandling: {
      global: noop,
      // The per-host breaker lets the pool route around a dead member; with one endpoint there is
      // nothing to route to, and etcd3's default would refuse every call for 5 s after an outage.
      host: () =>
        options.endpoints.length > 1
          ? circuitBreaker(handleWhen(isRecoverableError), {
              halfOpenAfter: 1000,
              breaker: new ConsecutiveBreaker(3),
            })
          : noop,
    },
    grpcOptions: {
      'grpc.max_receive_message_length': 256 * 1024 * 1024,
      'grpc.initial_reconnect_backoff_ms': 100,
      'grpc.max_reconnect_backoff_ms': 1000,
      'grpc.keepalive_time_ms': 30_000,
      'grpc.keepalive_timeout_ms': 10_000,
    },
  };
  if (options.tls) {
    etcdOptions.credentials = {
      // grpc-js takes null for "use the system roots"; etcd3's type insists on a Buffer.
      rootCertificate: options.tls.ca ?? (null as unknown as Buffer),
      ...(options.tls.key && { privateKey: options.tls.key }),
      ...(options.tls.cert && { certChain: options.tls.cert }),
    };
  }
  if (options.username !== undefined) {
    etcdOptions.auth = { username: options.username, password: options.password ?? '' };
  }
  const client = new Etcd3(etcdOptions);
  let closed = false;

  const assertOpen = (): void => {
    if (closed) throw new IpamError('Unavailable', 'datastore is closed');
  };

  return {
    client,
    label,
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
      client.close();
    },
  };
}
