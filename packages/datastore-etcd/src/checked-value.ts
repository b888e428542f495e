import { IpamError, isIpamError } from '@netledger/ipam-core';
import { decodeValue, describeKey, encodeValue } from '@netledger/ipam-core/adapter';
import type { DatastoreKey, Kind } from '@netledger/ipam-core';
import type { ValueByKind } from '@netledger/ipam-core/adapter';

/** A value's stored text and the value every later read of that text returns. */
export interface CheckedValue<K extends Kind> {
  readonly text: string;
  /** Decoded from `text`: a fresh object, shared with no caller. */
  readonly value: ValueByKind[K];
}

/**
 * The Calico JSON of `value` under `key`, read back as every later read will. A value no read
 * could decode (a block whose cidr is not its key's, an allocation pointing at a missing
 * attribute) is refused with `InvalidArgument` naming the key before anything is sent, rather
 * than committed and then reported as `CorruptValue`.
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
