import type { DatastoreKey, Kind } from '@netledger/ipam-core';
import { IpamError, isIpamError } from '@netledger/ipam-core';
import type { ValueByKind } from '@netledger/ipam-core/adapter';
import { decodeValue, describeKey, encodeValue } from '@netledger/ipam-core/adapter';

/** A value's stored text and the value read back from it. */
export interface CheckedValue<K extends Kind> {
  readonly text: string;
  /** What every later read of `text` returns: a fresh object, shared with no caller. */
  readonly value: ValueByKind[K];
}

/**
 * The stored text of `value` under `key`, checked by reading it back as every later read will:
 * a value this store could not read (a block whose cidr is not its key's, an allocation pointing
 * at a missing attribute) is refused with `InvalidArgument` naming the key before anything is
 * written, rather than committed and then reported as `CorruptValue`.
 */
export function encodeCheckedValue<K extends Kind>(
  key: DatastoreKey<K>,
  value: ValueByKind[K],
): CheckedValue<K> {
  const text = encodeValue(key.kind, value);
  try {
    return { text, value: decodeValue(key, text) };
  } catch (e) {
    if (!isIpamError(e, 'CorruptValue')) throw e;
    const why = e.cause instanceof Error ? e.cause.message : e.message;
    throw new IpamError('InvalidArgument', `refusing to write ${describeKey(key)}: ${why}`, {
      identifier: describeKey(key),
      cause: e,
    });
  }
}
