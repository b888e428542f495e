// The etcd calls the Datastore makes, as one port with two adapters: gRPC through etcd3
// (grpc-kv.ts) and etcd's HTTP/JSON gateway through node:http (gateway-kv.ts). The shapes are
// etcd's protobuf messages as etcd3 gives them: keys and values are Buffers, int64 fields decimal
// strings, and every field of a response is present (adapters fill in proto3's omitted defaults).
// They are structurally compatible with etcd3's `IRangeRequest`, `IRangeResponse` and friends, so
// the gRPC adapter passes them through.

import type { TlsMaterial } from './load-tls-material.js';

/** The header of every etcd response. */
export interface KvResponseHeader {
  readonly cluster_id: string;
  readonly member_id: string;
  /** The store revision when the request was served. */
  readonly revision: string;
  readonly raft_term: string;
}

/** One stored key. `version` is 1 right after the key is created; a deleted key has 0. */
export interface KvKeyValue {
  readonly key: Buffer;
  readonly create_revision: string;
  readonly mod_revision: string;
  readonly version: string;
  readonly value: Buffer;
  readonly lease: string;
}

/** A range read: `key` alone, or `[key, range_end)`. */
export interface KvRangeRequest {
  readonly key: Buffer;
  readonly range_end?: Buffer;
  readonly limit?: number;
  /** Read at this store revision (fails on a compacted one); default: the current revision. */
  readonly revision?: string;
  readonly keys_only?: boolean;
  readonly count_only?: boolean;
}

export interface KvRangeResponse {
  readonly header: KvResponseHeader;
  readonly kvs: KvKeyValue[];
  /** True when `limit` cut the result short. */
  readonly more: boolean;
  readonly count: string;
}

export interface KvPutRequest {
  readonly key: Buffer;
  readonly value: Buffer;
  /** Return the value the put replaced. */
  readonly prev_kv?: boolean;
}

export interface KvPutResponse {
  readonly header: KvResponseHeader;
  /** The replaced key, when asked for and the key existed. */
  readonly prev_kv?: KvKeyValue | undefined;
}

export interface KvDeleteRangeRequest {
  readonly key: Buffer;
  readonly range_end?: Buffer;
}

export interface KvDeleteRangeResponse {
  readonly header: KvResponseHeader;
  readonly deleted: string;
}

/** One comparison of a transaction; the field named by `target` holds the value to compare to. */
export interface KvCompare {
  readonly key: Buffer;
  readonly target: 'Version' | 'Create' | 'Mod' | 'Value';
  readonly result: 'Equal' | 'Greater' | 'Less' | 'NotEqual';
  readonly version?: number | string;
  readonly create_revision?: string;
  readonly mod_revision?: string;
  readonly value?: Buffer;
}

/** One operation of a transaction: exactly one field is set. */
export interface KvRequestOp {
  readonly request_range?: KvRangeRequest;
  readonly request_put?: KvPutRequest;
  readonly request_delete_range?: KvDeleteRangeRequest;
}

/** The result of one operation: the field matching the request's is set. */
export interface KvResponseOp {
  readonly response_range?: KvRangeResponse;
  readonly response_put?: KvPutResponse;
  readonly response_delete_range?: KvDeleteRangeResponse;
}

export interface KvTxnRequest {
  readonly compare?: KvCompare[];
  readonly success?: KvRequestOp[];
  readonly failure?: KvRequestOp[];
}

export interface KvTxnResponse {
  readonly header: KvResponseHeader;
  /** True when every comparison held (the `success` operations ran). */
  readonly succeeded: boolean;
  readonly responses: KvResponseOp[];
}

/** A watch from `start_revision` on `key`, or on `[key, range_end)`. */
export interface KvWatchRequest {
  readonly key: Buffer;
  readonly range_end?: Buffer;
  readonly start_revision: string;
  /** Deliver the previous value with each event (deletes carry what was deleted). */
  readonly prev_kv?: boolean;
}

export interface KvEvent {
  readonly type: 'Put' | 'Delete';
  /** For a delete: the key and its delete revision (`mod_revision`) only. */
  readonly kv: KvKeyValue;
  readonly prev_kv?: KvKeyValue | undefined;
}

/** Events in revision order, or (no events) a progress notification: all up to `header.revision` was sent. */
export interface KvWatchResponse {
  readonly header: KvResponseHeader;
  readonly events: KvEvent[];
}

/**
 * What a watch reports. Handlers are never called before `watch` has returned. After
 * `onDisconnected` or `onCanceled` the watch is over and reports nothing more; the caller opens a
 * new one to go on.
 */
export interface KvWatchHandlers {
  onResponse(res: KvWatchResponse): void;
  /** The stream was lost (connection, member down); a new watch can resume. */
  onDisconnected(err: unknown): void;
  /** etcd ended the watch (compacted start revision, permission): resuming as is will not help. */
  onCanceled(err: unknown): void;
}

/** A running watch. */
export interface KvWatch {
  /** Stops the watch; no handler is called afterwards. Idempotent. */
  cancel(): void;
}

/**
 * The etcd operations the Datastore uses. Every failure rejects with an error that
 * `classifyEtcdError` classifies (adapters throw `EtcdKvError` for what they recognise).
 * Adapters do not retry: the session's `retrying` owns retries, because only it knows whether
 * a write's outcome must be resolved first.
 */
export interface EtcdKv {
  range(req: KvRangeRequest): Promise<KvRangeResponse>;
  txn(req: KvTxnRequest): Promise<KvTxnResponse>;
  put(req: KvPutRequest): Promise<KvPutResponse>;
  /** Starts a watch at once; responses arrive through `handlers`. */
  watch(req: KvWatchRequest, handlers: KvWatchHandlers): KvWatch;
  /** Ends every call and watch in flight and releases connections. */
  close(): void;
}

/** What every adapter is created from (validated by the factory). */
export interface EtcdKvOptions {
  /** `http(s)://host:port` URLs, all of one scheme (see `parseEtcdEndpoints`). */
  readonly endpoints: readonly string[];
  readonly tls: TlsMaterial | undefined;
  readonly username: string | undefined;
  readonly password: string | undefined;
  readonly dialTimeoutMs: number;
  readonly requestTimeoutMs: number;
}
