/**
 * How a stored value's JSON held what its model has no field for, so that writing the value back
 * changes only what netledger meant to change. The codec fills it in on decode and honours it on
 * encode; other code carries it along (a spread copies it) and never needs to read it. Only values
 * read from a store have one, and only when their JSON has something to keep.
 */
export interface StoredJson {
  /**
   * How an empty field was stored, by JSON key: `null` (Go's nil slice or map, or a legacy
   * writer's null, e.g. `"handle_id":null` and `"secondary":null` from Calico before v3.32, or a
   * `sequenceNumberForAllocation` a block has had no ordinal sequenced in), or `{}` (an empty map
   * where Go now omits it). While the field is empty it is written that way again; once an
   * operation gives it an entry it is written as Go writes a non-nil one, and stays so after the
   * next read (within one in-memory value, netledger cannot tell emptied-again from never-filled).
   */
  readonly emptyAs?: Readonly<Record<string, 'null' | '{}'>>;
  /**
   * Keys the model does not know (such as a block's deprecated `strictAffinity`), each with its
   * JSON value and the known key it followed (`''` when it came first), in the order read.
   */
  readonly unknownKeys?: readonly UnknownJsonKey[];
}

/** A key of a stored JSON object that the model does not know. */
export interface UnknownJsonKey {
  /** The last known key before it in the stored JSON (`''` when none). */
  readonly after: string;
  readonly key: string;
  readonly value: unknown;
}
