// etcd's protobuf messages as its HTTP gateway speaks them (proto3 JSON): bytes are base64, int64
// are decimal strings, enums are names, and every field holding its default value is left out
// (`succeeded` when false, `kvs` when empty, `count` when 0, the `type` of a put event...).
// Requests are encoded from the port's shapes; answers are decoded to the port's full shapes, with
// every omitted field filled in, so callers see what the gRPC transport gives them.
import { EtcdKvError } from './etcd-kv-error.js';
import type {
  KvCompare,
  KvDeleteRangeRequest,
  KvDeleteRangeResponse,
  KvEvent,
  KvKeyValue,
  KvPutRequest,
  KvPutResponse,
  KvRangeRequest,
  KvRangeResponse,
  KvRequestOp,
  KvResponseHeader,
  KvResponseOp,
  KvTxnRequest,
  KvTxnResponse,
  KvWatchRequest,
  KvWatchResponse,
} from './etcd-kv.js';
import { classifyEtcdStatus, watchCanceledError } from './gateway-error.js';

type Json = Record<string, unknown>;

const b64 = (b: Buffer | undefined): string | undefined => b?.toString('base64');
const int64 = (v: number | string | undefined): string | undefined =>
  v === undefined ? undefined : String(v);

// JSON.stringify drops the undefined fields, which is how proto3 JSON leaves them unset.

/** `POST /v3/kv/range` body. */
export function encodeRangeRequest(req: KvRangeRequest): Json {
  return {
    key: b64(req.key),
    range_end: b64(req.range_end),
    limit: int64(req.limit),
    revision: req.revision,
    keys_only: req.keys_only,
    count_only: req.count_only,
  };
}

/** `POST /v3/kv/put` body. */
export function encodePutRequest(req: KvPutRequest): Json {
  return { key: b64(req.key), value: b64(req.value), prev_kv: req.prev_kv };
}

function encodeDeleteRangeRequest(req: KvDeleteRangeRequest): Json {
  return { key: b64(req.key), range_end: b64(req.range_end) };
}

const COMPARE_TARGETS = {
  Version: 'VERSION',
  Create: 'CREATE',
  Mod: 'MOD',
  Value: 'VALUE',
} as const;
const COMPARE_RESULTS = {
  Equal: 'EQUAL',
  Greater: 'GREATER',
  Less: 'LESS',
  NotEqual: 'NOT_EQUAL',
} as const;

function encodeCompare(c: KvCompare): Json {
  return {
    key: b64(c.key),
    target: COMPARE_TARGETS[c.target],
    result: COMPARE_RESULTS[c.result],
    version: int64(c.version),
    create_revision: c.create_revision,
    mod_revision: c.mod_revision,
    value: b64(c.value),
  };
}

function encodeRequestOp(op: KvRequestOp): Json {
  return {
    request_range: op.request_range && encodeRangeRequest(op.request_range),
    request_put: op.request_put && encodePutRequest(op.request_put),
    request_delete_range:
      op.request_delete_range && encodeDeleteRangeRequest(op.request_delete_range),
  };
}

/** `POST /v3/kv/txn` body: comparisons with etcd's enum names (`VERSION`, `NOT_EQUAL`...). */
export function encodeTxnRequest(req: KvTxnRequest): Json {
  return {
    compare: req.compare?.map(encodeCompare),
    success: req.success?.map(encodeRequestOp),
    failure: req.failure?.map(encodeRequestOp),
  };
}

/** The body of `POST /v3/watch` that creates the watch (progress notifications on, as etcd3 asks). */
export function encodeWatchCreateRequest(req: KvWatchRequest): Json {
  return {
    create_request: {
      key: b64(req.key),
      range_end: b64(req.range_end),
      start_revision: req.start_revision,
      prev_kv: req.prev_kv,
      progress_notify: true,
    },
  };
}

// Decoding: anything that is not proto3 JSON of the expected message is an error, never a guess.

const malformed = (what: string): EtcdKvError =>
  new EtcdKvError(`unexpected answer from the etcd gateway: ${what}`, { errorClass: 'other' });

function object(v: unknown, what: string): Json {
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw malformed(`${what} is not an object`);
  return v as Json;
}

function array(v: unknown, what: string): unknown[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw malformed(`${what} is not an array`);
  return v;
}

function decodeInt64(v: unknown, what: string): string {
  if (v === undefined || v === null) return '0';
  if (typeof v === 'string' && /^-?[0-9]+$/.test(v)) return v;
  if (typeof v === 'number' && Number.isSafeInteger(v)) return String(v);
  throw malformed(`${what} is not an int64`);
}

function decodeBool(v: unknown, what: string): boolean {
  if (v === undefined || v === null) return false;
  if (typeof v !== 'boolean') throw malformed(`${what} is not a boolean`);
  return v;
}

function decodeString(v: unknown, what: string): string {
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') throw malformed(`${what} is not a string`);
  return v;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function decodeBytes(v: unknown, what: string): Buffer {
  if (v === undefined || v === null) return Buffer.alloc(0);
  // Buffer.from(..., 'base64') skips what it does not understand: check first, so a mangled value
  // is an error and never different bytes.
  if (typeof v !== 'string' || !BASE64.test(v)) throw malformed(`${what} is not base64`);
  return Buffer.from(v, 'base64');
}

function decodeHeader(v: unknown): KvResponseHeader {
  const h = object(v, 'header');
  return {
    cluster_id: decodeInt64(h.cluster_id, 'header.cluster_id'),
    member_id: decodeInt64(h.member_id, 'header.member_id'),
    revision: decodeInt64(h.revision, 'header.revision'),
    raft_term: decodeInt64(h.raft_term, 'header.raft_term'),
  };
}

function decodeKeyValue(v: unknown): KvKeyValue {
  const kv = object(v, 'kv');
  return {
    key: decodeBytes(kv.key, 'kv.key'),
    create_revision: decodeInt64(kv.create_revision, 'kv.create_revision'),
    mod_revision: decodeInt64(kv.mod_revision, 'kv.mod_revision'),
    version: decodeInt64(kv.version, 'kv.version'),
    value: decodeBytes(kv.value, 'kv.value'),
    lease: decodeInt64(kv.lease, 'kv.lease'),
  };
}

/** A range answer, full shape; throws `EtcdKvError` (`other`) on anything etcd would not send. */
export function decodeRangeResponse(v: unknown): KvRangeResponse {
  const res = object(v, 'range response');
  return {
    header: decodeHeader(res.header),
    kvs: array(res.kvs, 'kvs').map(decodeKeyValue),
    more: decodeBool(res.more, 'more'),
    count: decodeInt64(res.count, 'count'),
  };
}

/** A put answer; `prev_kv` only when etcd sent one. Throws like {@link decodeRangeResponse}. */
export function decodePutResponse(v: unknown): KvPutResponse {
  const res = object(v, 'put response');
  return {
    header: decodeHeader(res.header),
    prev_kv: res.prev_kv === undefined ? undefined : decodeKeyValue(res.prev_kv),
  };
}

function decodeDeleteRangeResponse(v: unknown): KvDeleteRangeResponse {
  const res = object(v, 'delete response');
  return { header: decodeHeader(res.header), deleted: decodeInt64(res.deleted, 'deleted') };
}

function decodeResponseOp(v: unknown): KvResponseOp {
  const op = object(v, 'response op');
  if (op.response_range !== undefined) {
    return { response_range: decodeRangeResponse(op.response_range) };
  }
  if (op.response_put !== undefined) return { response_put: decodePutResponse(op.response_put) };
  if (op.response_delete_range !== undefined) {
    return { response_delete_range: decodeDeleteRangeResponse(op.response_delete_range) };
  }
  throw malformed('a transaction response op of no known kind');
}

/** A transaction answer: `succeeded` false when absent, each op decoded. Throws like {@link decodeRangeResponse}. */
export function decodeTxnResponse(v: unknown): KvTxnResponse {
  const res = object(v, 'txn response');
  return {
    header: decodeHeader(res.header),
    succeeded: decodeBool(res.succeeded, 'succeeded'),
    responses: array(res.responses, 'responses').map(decodeResponseOp),
  };
}

/** The token of an authenticate answer; throws `EtcdKvError` when there is none. */
export function decodeAuthenticateResponse(v: unknown): string {
  const token = decodeString(object(v, 'authenticate response').token, 'token');
  if (!token) throw malformed('authenticate response without a token');
  return token;
}

function decodeEvent(v: unknown): KvEvent {
  const ev = object(v, 'event');
  // proto3 JSON leaves out PUT, the enum's zero value; some encoders write enums as numbers.
  const type = ev.type ?? 'PUT';
  if (type !== 'PUT' && type !== 'DELETE' && type !== 0 && type !== 1) {
    throw malformed(`event type ${JSON.stringify(type)}`);
  }
  return {
    type: type === 'DELETE' || type === 1 ? 'Delete' : 'Put',
    kv: decodeKeyValue(ev.kv),
    prev_kv: ev.prev_kv === undefined ? undefined : decodeKeyValue(ev.prev_kv),
  };
}

/** One message of a gateway watch stream, decoded. */
export type GatewayWatchMessage =
  /** The watch is established; nothing to deliver. */
  | { readonly kind: 'created' }
  /** Events, or a progress notification (no events). */
  | { readonly kind: 'response'; readonly response: KvWatchResponse }
  /** etcd canceled the watch; the error says why. */
  | { readonly kind: 'canceled'; readonly error: EtcdKvError }
  /** The gateway lost the stream to etcd: `{"error": {...}}` in place of a result. */
  | { readonly kind: 'error'; readonly error: EtcdKvError };

/**
 * Decodes one object of a `POST /v3/watch` stream: `{"result": WatchResponse}` or, when the
 * gateway's stream to etcd fails, `{"error": {"grpc_code", "http_code", "message", ...}}`.
 */
export function decodeWatchMessage(v: unknown): GatewayWatchMessage {
  const message = object(v, 'watch message');
  if (message.error !== undefined) {
    const e = object(message.error, 'watch error');
    const text = decodeString(e.message, 'watch error message') || 'the watch stream failed';
    const grpcCode = typeof e.grpc_code === 'number' ? e.grpc_code : undefined;
    const error = new EtcdKvError(text, {
      errorClass: classifyEtcdStatus(grpcCode, text),
      ...(grpcCode !== undefined && { grpcCode }),
    });
    return { kind: 'error', error };
  }
  if (message.result === undefined) throw malformed('watch message without a result');
  const res = object(message.result, 'watch result');
  if (decodeBool(res.canceled, 'canceled')) {
    return {
      kind: 'canceled',
      error: watchCanceledError(
        decodeString(res.cancel_reason, 'cancel_reason'),
        decodeInt64(res.compact_revision, 'compact_revision'),
      ),
    };
  }
  if (decodeBool(res.created, 'created')) return { kind: 'created' };
  return {
    kind: 'response',
    response: {
      header: decodeHeader(res.header),
      events: array(res.events, 'events').map(decodeEvent),
    },
  };
}
