// Typed field readers for decoding stored JSON: each throws `Corrupt` naming the field, which the
// value codec turns into `IpamError('CorruptValue')` naming the key.
import type { JsonValue } from './json.js';

/** A JSON object as parsed. */
export type Obj = { [key: string]: JsonValue };

/** A stored value that is not valid Calico JSON for its kind; `message` names the field. */
export class Corrupt extends Error {}

/** Throws {@link Corrupt}. */
export const bad = (what: string): never => {
  throw new Corrupt(what);
};

/** True for a JSON object (not null, not an array). */
export const isObj = (v: unknown): v is Obj =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** An object field. */
export const obj = (v: JsonValue | undefined, what: string): Obj =>
  isObj(v) ? v : bad(`${what} is not an object`);

/** A string field. */
export const str = (v: JsonValue | undefined, what: string): string =>
  typeof v === 'string' ? v : bad(`${what} is not a string`);

/** A string field that may be absent or null. */
export const optStr = (v: JsonValue | undefined, what: string): string | undefined =>
  v === undefined || v === null ? undefined : str(v, what);

/** A boolean field; absent or null is false (Go's zero value). */
export const bool = (v: JsonValue | undefined, what: string): boolean =>
  v === undefined || v === null
    ? false
    : typeof v === 'boolean'
      ? v
      : bad(`${what} is not a boolean`);

/** A safe-integer field; absent or null is 0. */
export const int = (v: JsonValue | undefined, what: string): number =>
  v === undefined || v === null
    ? 0
    : typeof v === 'number' && Number.isSafeInteger(v)
      ? v
      : bad(`${what} is not an integer`);

/** A uint64 field, exact; absent or null is 0. */
export const uint64 = (v: JsonValue | undefined, what: string): bigint => {
  if (v === undefined || v === null) return 0n;
  const n =
    typeof v === 'bigint'
      ? v
      : typeof v === 'number' && Number.isInteger(v)
        ? BigInt(v)
        : bad(`${what} is not an integer`);
  return n >= 0n && n < 1n << 64n ? n : bad(`${what} is out of the uint64 range`);
};

/** An array field; absent or null is empty. */
export const arr = (v: JsonValue | undefined, what: string): JsonValue[] =>
  v === undefined || v === null ? [] : Array.isArray(v) ? v : bad(`${what} is not an array`);

/** A `map[string]string` field; absent or null is undefined. */
export const strMap = (
  v: JsonValue | undefined,
  what: string,
): Record<string, string> | undefined => {
  if (v === undefined || v === null) return undefined;
  const o = obj(v, what);
  for (const [k, x] of Object.entries(o)) str(x, `${what}.${k}`);
  return o as Record<string, string>;
};
