import { IpamError, isIpamError } from '../errors.js';
import { assertObjectSize } from '../limits/object-limits.js';
import type { DatastoreKey, Kind, ValueByKind } from '../model/keys.js';
import { describeKey } from '../model/keys.js';
import { decodeValue, encodeValue } from './value-codec.js';

/** A value's stored text and the value every later read of that text returns. */
export interface CheckedValue<K extends Kind> {
  readonly text: string;
  /** Decoded from `text`: a fresh object, shared with no caller. */
  readonly value: ValueByKind[K];
}

/**
 * The Calico JSON of `value` under `key`, read back as every later read will: a value no read
 * could decode (a block whose cidr is not its key's, an allocation pointing at a missing
 * attribute), or one over Kubernetes' object size (1.5 MiB encoded), is refused with
 * `InvalidArgument` naming the key before a store writes it, rather than committed and then
 * reported as `CorruptValue` (or refused by etcd, or slowing every later read).
 */
export function encodeCheckedValue<K extends Kind>(
  key: DatastoreKey<K>,
  value: ValueByKind[K],
): CheckedValue<K> {
  const text = encodeValue(key.kind, value);
  assertObjectSize(key, text);
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

/**
 * Refuses, as {@link encodeCheckedValue} does, a value whose Calico JSON is over Kubernetes'
 * object size (`InvalidArgument` naming the key and the limit), for a store that keeps values
 * decoded (the memory store) and so never needs the text.
 */
export function assertEncodedSize<K extends Kind>(
  key: DatastoreKey<K>,
  value: ValueByKind[K],
): void {
  assertObjectSize(key, encodeValue(key.kind, value));
}
