import type { EtcdErrorClass } from './map-etcd-error.js';

/**
 * An error from an `EtcdKv` adapter, already classified. Adapters convert what their client
 * throws into this, so the session and `toIpamError` treat both transports alike without loading
 * either client's error classes. `message` is the client's own text.
 */
export class EtcdKvError extends Error {
  override readonly name: string = 'EtcdKvError';
  readonly errorClass: EtcdErrorClass;
  /** The gRPC status code etcd answered with, when it answered (the gateway reports it). */
  readonly grpcCode: number | undefined;

  constructor(
    message: string,
    options: { errorClass: EtcdErrorClass; grpcCode?: number; cause?: unknown },
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.errorClass = options.errorClass;
    this.grpcCode = options.grpcCode;
  }
}
