import { decodeValue } from '@netledger/ipam-core/adapter';
import type { StoredEntry } from './store-snapshot.js';

// A stored entry never changes (a write makes a new one), so its value needs decoding at most
// twice; every read then gets its own copy, so no caller can change what the next one reads.
// Copying the plain data a decode returns is much cheaper than decoding again (a full /26 block
// most of all; figures in docs/benchmarks.md), and a long-lived reader such as the node agent reads
// the same blocks, pools and affinities on every request. A value is kept from its second read on:
// a value read once (a listing by a one-shot command) costs a decode, as before, and holds nothing.
//
// Only plain data is kept: arrays, objects whose prototype is Object's (or none) holding only
// enumerable own string-keyed values, and primitives. A value holding anything else (a class
// instance, a Date) would not survive the copy as it is, so it is decoded on every read instead.

const decoded = new WeakMap<StoredEntry, unknown>();
const readOnce = new WeakSet<StoredEntry>();

function isPlainData(v: unknown): boolean {
  if (typeof v === 'function' || typeof v === 'symbol') return false;
  if (typeof v !== 'object' || v === null) return true;
  if (Array.isArray(v)) {
    if (Object.getPrototypeOf(v) !== Array.prototype) return false;
    for (let i = 0; i < v.length; i++) {
      if (!(i in v) || !isPlainData(v[i])) return false;
    }
    return Reflect.ownKeys(v).length === v.length + 1; // the indices and `length`
  }
  const proto: unknown = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return false;
  const keys = Object.keys(v);
  if (Reflect.ownKeys(v).length !== keys.length) return false;
  for (const k of keys) {
    const d = Object.getOwnPropertyDescriptor(v, k)!;
    if (!('value' in d) || !isPlainData(d.value)) return false;
  }
  return true;
}

/** A deep copy of plain data (see {@link isPlainData}): new arrays and objects, same primitives. */
function copyPlainData<T>(v: T): T {
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) {
    const out: unknown[] = new Array<unknown>(v.length);
    for (let i = 0; i < v.length; i++) out[i] = copyPlainData(v[i] as unknown);
    return out as T;
  }
  const src = v as Record<string, unknown>;
  const out: Record<string, unknown> =
    Object.getPrototypeOf(src) === null ? (Object.create(null) as Record<string, unknown>) : {};
  for (const k of Object.keys(src)) {
    const x = copyPlainData(src[k]);
    // A JSON key "__proto__" is an own property; plain assignment would set the prototype.
    if (k === '__proto__') {
      Object.defineProperty(out, k, {
        value: x,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else {
      out[k] = x;
    }
  }
  return out as T;
}

/**
 * The value of `entry` as `decodeValue` gives it, in a fresh copy that shares no object with any
 * other caller's. Decodes on the first two calls for an entry (throwing what `decodeValue` throws,
 * keeping nothing), then copies what the second one decoded.
 */
export function decodeStoredValue(entry: StoredEntry): unknown {
  if (decoded.has(entry)) return copyPlainData(decoded.get(entry));
  const value = decodeValue(entry.key, entry.value);
  if (!readOnce.has(entry)) {
    readOnce.add(entry);
    return value;
  }
  if (isPlainData(value)) decoded.set(entry, copyPlainData(value));
  return value;
}
