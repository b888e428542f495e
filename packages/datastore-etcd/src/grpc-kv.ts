// The gRPC transport: etcd3 (and with it @grpc/grpc-js, protobufjs and cockatiel). Everything that
// loads those packages is in this module, which the factory imports dynamically, so the HTTP
// gateway transport never evaluates them and a bundle of it can leave them out.
import {
  ConsecutiveBreaker,
  circuitBreaker,
  handleWhen,
  isBrokenCircuitError,
  noop,
} from 'cockatiel';
import {
  ClientClosedError,
  Etcd3,
  EtcdAuthenticationFailedError,
  EtcdInvalidAuthTokenError,
  EtcdPermissionDeniedError,
  GRPCInvalidArgumentError,
  GRPCUnauthenticatedError,
  isRecoverableError,
} from 'etcd3';
import type { IOptions, Watcher } from 'etcd3';
import type { EtcdKv, EtcdKvOptions, KvWatch, KvWatchHandlers, KvWatchRequest } from './etcd-kv.js';
import { EtcdKvError } from './etcd-kv-error.js';
import { classifyEtcdError } from './map-etcd-error.js';
import type { EtcdErrorClass } from './map-etcd-error.js';

/** Classifies an error thrown by etcd3 (see `EtcdErrorClass`) from its class. */
export function classifyGrpcError(e: unknown): EtcdErrorClass {
  if (!(e instanceof Error)) return 'other';
  if (e instanceof ClientClosedError) return 'closed';
  if (/required revision has been compacted/.test(e.message)) return 'compacted';
  if (
    e instanceof EtcdAuthenticationFailedError ||
    e instanceof EtcdPermissionDeniedError ||
    e instanceof EtcdInvalidAuthTokenError ||
    e instanceof GRPCUnauthenticatedError
  ) {
    return 'rejected';
  }
  if (e instanceof GRPCInvalidArgumentError) return 'invalid';
  if (isRecoverableError(e) || isBrokenCircuitError(e)) return 'retry';
  return classifyEtcdError(e);
}

/** An etcd3 error as an `EtcdKvError` with the same message (the original is its `cause`). */
export function fromGrpcError(e: unknown): EtcdKvError {
  if (e instanceof EtcdKvError) return e;
  return new EtcdKvError(e instanceof Error ? e.message : String(e), {
    errorClass: classifyGrpcError(e),
    cause: e,
  });
}

const wrapped = async <T>(call: () => Promise<T>): Promise<T> => {
  try {
    return await call();
  } catch (e) {
    throw fromGrpcError(e);
  }
};

function clientOptions(options: EtcdKvOptions): IOptions {
  const etcdOptions: IOptions = {
    hosts: [...options.endpoints],
    dialTimeout: options.dialTimeoutMs,
    defaultCallOptions: (ctx) =>
      ctx.isStream ? {} : { deadline: Date.now() + options.requestTimeoutMs },
    faultHandling: {
      // etcd3's global retry would re-send a compare-and-swap whose first attempt may have
      // committed; the session retries instead.
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
  return etcdOptions;
}

function watchOver(client: Etcd3, req: KvWatchRequest, handlers: KvWatchHandlers): KvWatch {
  let builder = client.watch();
  builder = req.range_end
    ? builder.inRange({ start: req.key, end: req.range_end })
    : builder.key(req.key);
  builder = builder.startRevision(req.start_revision);
  if (req.prev_kv) builder = builder.withPreviousKV();
  // watcher() attaches our listeners before any response can arrive; create() would race them.
  const watcher: Watcher = builder.watcher();
  let over = false;
  const finish = (): void => {
    if (over) return;
    over = true;
    // Dropped: the watch is over for the caller already (canceled, or failed and said so), and
    // after a disconnect the cancel is expected to fail; there is no one to tell and nothing to do.
    void watcher.cancel().catch(() => undefined);
  };
  watcher.on('data', (res) => {
    if (!over) handlers.onResponse({ header: res.header, events: res.events });
  });
  // etcd3 would reconnect by itself; the caller resumes from what it has delivered instead.
  watcher.on('disconnected', (err) => {
    if (over) return;
    finish();
    handlers.onDisconnected(fromGrpcError(err));
  });
  watcher.on('error', (err) => {
    if (over) return;
    finish();
    handlers.onCanceled(fromGrpcError(err));
  });
  return { cancel: finish };
}

/**
 * The gRPC transport over one etcd3 client. etcd3's own retry policy is off (see above); every
 * error it throws becomes an `EtcdKvError` carrying etcd3's message. Connects lazily.
 */
export function createGrpcKv(options: EtcdKvOptions): EtcdKv {
  const client = new Etcd3(clientOptions(options));
  return {
    range: (req) => wrapped(() => client.kv.range(req)),
    txn: (req) => wrapped(() => client.kv.txn(req)),
    put: (req) => wrapped(() => client.kv.put(req)),
    watch: (req, handlers) => watchOver(client, req, handlers),
    close: () => client.close(),
  };
}
