import { EtcdKvError } from './etcd-kv-error.js';
import { REJECTED_MESSAGES, classifyEtcdError } from './map-etcd-error.js';
import type { EtcdErrorClass } from './map-etcd-error.js';

// gRPC status codes etcd3 treats as recoverable (its `RecoverableError` classes): Cancelled,
// Unknown, DeadlineExceeded, ResourceExhausted, Aborted, Internal, Unavailable. The gateway reports
// the same codes, so the same errors are retried on either transport.
const RECOVERABLE_CODES: ReadonlySet<number> = new Set([1, 2, 4, 8, 10, 13, 14]);
const PERMISSION_DENIED = 7;
const INVALID_ARGUMENT = 3;
const UNAUTHENTICATED = 16;

// etcd3 recognises refusals by message before it looks at the code (authentication failures come
// back as InvalidArgument); REJECTED_MESSAGES lists them.

/**
 * Classifies an etcd answer by its gRPC status code and message, as etcd3 classifies the same
 * answer over gRPC: compacted, then refused (authentication, permission), then malformed
 * (InvalidArgument), then retryable (the codes etcd3 retries, or a transient message).
 */
export function classifyEtcdStatus(code: number | undefined, message: string): EtcdErrorClass {
  if (/required revision has been compacted/.test(message)) return 'compacted';
  if (REJECTED_MESSAGES.test(message) || code === PERMISSION_DENIED || code === UNAUTHENTICATED) {
    return 'rejected';
  }
  if (code === INVALID_ARGUMENT) return 'invalid';
  if (code !== undefined && RECOVERABLE_CODES.has(code)) return 'retry';
  return classifyEtcdError(new Error(message));
}

/** True for etcd's answer to an expired or unknown token: authenticate again and re-send. */
export function isInvalidAuthToken(e: unknown): boolean {
  return e instanceof EtcdKvError && /invalid auth token/.test(e.message);
}

/**
 * No answer from one gateway endpoint: the connection failed, broke, or timed out. Always
 * retryable. `requestSent` is false when no connection was ever made, so nothing reached etcd and
 * the next endpoint can be tried at once.
 */
export class GatewayUnreachableError extends EtcdKvError {
  override readonly name: string = 'GatewayUnreachableError';
  readonly endpoint: string;
  readonly requestSent: boolean;

  constructor(endpoint: string, cause: Error, requestSent: boolean) {
    super(`${endpoint}: ${cause.message}`, { errorClass: 'retry', cause });
    this.endpoint = endpoint;
    this.requestSent = requestSent;
  }
}

const HTTP_GATEWAY_UNAVAILABLE = new Set([502, 503, 504]);

/** etcd 3.4's gateway refusing a client certificate with a CommonName while auth is on. */
const COMMON_NAME_REFUSED = /CommonName of client sending a request against gateway/;

/**
 * The error for a non-200 gateway answer. etcd's gateway answers
 * `{"error": "...", "code": <grpc code>, "message": "..."}`; the message is etcd's own text, as over
 * gRPC. A body that is not such JSON (a proxy's page) is classified by its HTTP status.
 */
export function gatewayStatusError(endpoint: string, status: number, body: string): EtcdKvError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    parsed = undefined;
  }
  if (typeof parsed === 'object' && parsed !== null) {
    const { message, error, code } = parsed as Record<string, unknown>;
    const text = typeof message === 'string' && message ? message : error;
    if (typeof text === 'string' && text) {
      const grpcCode = typeof code === 'number' ? code : undefined;
      return new EtcdKvError(text, {
        errorClass: classifyEtcdStatus(grpcCode, text),
        ...(grpcCode !== undefined && { grpcCode }),
      });
    }
  }
  if (COMMON_NAME_REFUSED.test(body)) {
    // Not retryable, and the way out is not obvious from etcd's text alone.
    return new EtcdKvError(
      `${endpoint}: etcd's HTTP gateway refuses a client certificate with a CommonName while etcd auth is on ("${body.trim()}"); use the grpc transport, or a client certificate without a CommonName`,
      { errorClass: 'rejected' },
    );
  }
  const text = `${endpoint} answered HTTP ${status}${body ? `: ${body.slice(0, 200)}` : ''}`;
  return new EtcdKvError(text, {
    errorClass: HTTP_GATEWAY_UNAVAILABLE.has(status) ? 'retry' : 'other',
  });
}

// Go's names of the gRPC codes, by number, as they appear in a watch's cancel reason.
const GRPC_CODE_NAMES = [
  'OK',
  'Canceled',
  'Unknown',
  'InvalidArgument',
  'DeadlineExceeded',
  'NotFound',
  'AlreadyExists',
  'PermissionDenied',
  'ResourceExhausted',
  'FailedPrecondition',
  'Aborted',
  'OutOfRange',
  'Unimplemented',
  'Internal',
  'Unavailable',
  'DataLoss',
  'Unauthenticated',
];

/**
 * The error for a watch etcd canceled, from its `cancel_reason` ("rpc error: code = PermissionDenied
 * desc = ...") or its `compact_revision`. A compacted start revision is deliberately `other`, not
 * `compacted`: the watch tells compaction apart itself, and a write resolving its outcome from
 * history must end "may or may not have been applied", not `WatchExpired`.
 */
export function watchCanceledError(reason: string, compactRevision: string): EtcdKvError {
  if (compactRevision !== '0') {
    return new EtcdKvError(
      `watch canceled: history before revision ${compactRevision} is compacted`,
      { errorClass: 'other' },
    );
  }
  const index = GRPC_CODE_NAMES.indexOf(/code = (\w+)/.exec(reason)?.[1] ?? '');
  const grpcCode = index > 0 ? index : undefined;
  return new EtcdKvError(`watch canceled${reason ? `: ${reason}` : ''}`, {
    errorClass: classifyEtcdStatus(grpcCode, reason),
    ...(grpcCode !== undefined && { grpcCode }),
  });
}
