import { IpamError } from '@netledger/ipam-core';
import { assertDistinctKeys, encodeCheckedValue, keyToPath } from '@netledger/ipam-core/adapter';
import type { CheckedValue } from '@netledger/ipam-core/adapter';
import type { DatastoreKey, KVPair, Kind, TransactionWrite } from '@netledger/ipam-core';
import type { KvCompare, KvKeyValue, KvRequestOp, KvTxnRequest } from './etcd-kv.js';
import { alreadyExists, conflict, missing, revisionOf } from './write-errors.js';

// A `transact` call as one etcd transaction: the compares of every write (those of the single
// calls: create on version 0, update on mod revision, delete on existence plus the mod and create
// revisions asked for), the puts and deletes as the success branch, and a range of every key as
// the failure branch, so a refused transaction says at once which write failed and why.

/** One write of a transaction, validated, its value encoded. */
export type PlannedWrite =
  | {
      readonly op: 'create';
      readonly key: DatastoreKey;
      readonly path: string;
      readonly checked: CheckedValue<Kind>;
    }
  | {
      readonly op: 'update';
      readonly key: DatastoreKey;
      readonly path: string;
      readonly revision: string;
      readonly checked: CheckedValue<Kind>;
    }
  | {
      readonly op: 'delete';
      readonly key: DatastoreKey;
      readonly path: string;
      readonly revision: string | undefined;
      readonly uid: string | undefined;
    };

/** A transaction ready to send: its writes in order and the etcd request. */
export interface TransactionPlan {
  readonly writes: readonly PlannedWrite[];
  /** Success op `i` and failure op `i` belong to write `i`. */
  readonly request: KvTxnRequest;
}

function planWrite(write: TransactionWrite): PlannedWrite {
  switch (write.op) {
    case 'create': {
      const { key } = write.kv;
      return {
        op: 'create',
        key,
        path: keyToPath(key),
        checked: encodeCheckedValue(key, write.kv.value),
      };
    }
    case 'update': {
      const { key } = write.kv;
      const revision = revisionOf(key, write.kv.revision);
      const checked = encodeCheckedValue(key, write.kv.value);
      return { op: 'update', key, path: keyToPath(key), revision, checked };
    }
    case 'delete': {
      const { key, options = {} } = write;
      return {
        op: 'delete',
        key,
        path: keyToPath(key),
        revision: options.revision === undefined ? undefined : revisionOf(key, options.revision),
        uid: options.uid === undefined ? undefined : revisionOf(key, options.uid),
      };
    }
  }
}

function comparesOf(w: PlannedWrite, key: Buffer): KvCompare[] {
  switch (w.op) {
    case 'create':
      return [{ key, target: 'Version', result: 'Equal', version: 0 }];
    case 'update':
      return [{ key, target: 'Mod', result: 'Equal', mod_revision: w.revision }];
    case 'delete':
      return [
        { key, target: 'Version', result: 'Greater', version: 0 },
        ...(w.revision === undefined
          ? []
          : [{ key, target: 'Mod', result: 'Equal', mod_revision: w.revision } as const]),
        ...(w.uid === undefined
          ? []
          : [{ key, target: 'Create', result: 'Equal', create_revision: w.uid } as const]),
      ];
  }
}

function successOf(w: PlannedWrite, key: Buffer): KvRequestOp {
  switch (w.op) {
    case 'create':
      return { request_put: { key, value: Buffer.from(w.checked.text) } };
    case 'update':
      // The previous key-value carries the create revision, the object's uid.
      return { request_put: { key, value: Buffer.from(w.checked.text), prev_kv: true } };
    case 'delete':
      return { request_delete_range: { key } };
  }
}

/**
 * Validates and encodes `writes` into one etcd transaction, sending nothing. Throws
 * `InvalidArgument` for two writes to one key (etcd refuses those too), a revision or uid that is
 * not an etcd revision, a value no read could decode, or a value over 1.5 MiB encoded, naming the
 * key.
 */
export function planTransaction(writes: readonly TransactionWrite[]): TransactionPlan {
  const planned = writes.map(planWrite);
  assertDistinctKeys(planned.map((w) => w.key));
  const keys = planned.map((w) => Buffer.from(w.path));
  return {
    writes: planned,
    request: {
      compare: planned.flatMap((w, i) => comparesOf(w, keys[i]!)),
      success: planned.map((w, i) => successOf(w, keys[i]!)),
      failure: keys.map((key) => ({ request_range: { key } })),
    },
  };
}

/** The error `w` alone would raise against `current` (the key as stored, absent if none), if any. */
function writeFailure(w: PlannedWrite, current: KvKeyValue | undefined): IpamError | undefined {
  switch (w.op) {
    case 'create':
      return current ? alreadyExists(w.path) : undefined;
    case 'update':
      if (!current) return missing(w.key);
      return current.mod_revision === w.revision ? undefined : conflict(w.key);
    case 'delete':
      if (!current) return missing(w.key);
      if (w.revision !== undefined && current.mod_revision !== w.revision) return conflict(w.key);
      if (w.uid !== undefined && current.create_revision !== w.uid) return conflict(w.key);
      return undefined;
  }
}

/**
 * The error of the first write whose precondition fails against `current` (the failure branch's
 * ranges, in write order). All were read at the revision the compares were evaluated at, so one
 * always fails when etcd refused the transaction; if none does, the answer is not one etcd gives,
 * and the error says so (`Unavailable`).
 */
export function transactionFailure(
  plan: TransactionPlan,
  current: readonly (KvKeyValue | undefined)[],
): IpamError {
  for (const [i, w] of plan.writes.entries()) {
    const failure = writeFailure(w, current[i]);
    if (failure) return failure;
  }
  const paths = plan.writes.map((w) => w.path).join(', ');
  return new IpamError(
    'Unavailable',
    `etcd refused the transaction writing ${paths}, yet every precondition holds`,
    { identifier: paths },
  );
}

/**
 * The results of a transaction etcd applied at `revision` (every write of one transaction gets
 * the same one): each create and update as written, its uid the key's create revision
 * (`createRevisions[i]`, or `revision` for a key the transaction created); undefined for a delete.
 */
export function transactionResults(
  plan: TransactionPlan,
  at: { readonly revision: string; readonly createRevisions: readonly (string | undefined)[] },
): (KVPair | undefined)[] {
  return plan.writes.map((w, i) =>
    w.op === 'delete'
      ? undefined
      : {
          key: w.key,
          value: w.checked.value,
          revision: at.revision,
          uid: (w.op === 'update' && at.createRevisions[i]) || at.revision,
        },
  );
}
