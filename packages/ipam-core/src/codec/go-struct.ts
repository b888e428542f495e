// Writing a plain JS object the way Go's encoding/json marshals the struct it stands for: fields
// in declaration order, `omitempty` and `omitzero` as Go applies them, a field that is absent
// written as its zero value (`""`, `false`, `0`, `null`, or `{...}` for an embedded struct), map
// keys sorted, times as metav1.Time writes them. Keys the schema does not know (Go would drop them
// on read) are kept, after the known ones, in the order they came.
import { goTime, GO_ZERO_TIME } from './go-time.js';
import { RawJson, goOrderedObject, goString, stringifyJson } from './json.js';

/** The Go type of a field, as far as its JSON form goes. */
export type GoType =
  | 'string'
  | 'bool'
  | 'int'
  /** metav1.Time (a struct: never "empty"; the zero time is written `null`). */
  | 'time'
  /** An interface or a type with its own marshaller: written as the JS value is. */
  | 'any'
  | { readonly struct: readonly GoField[] }
  | { readonly slice: GoType }
  /** `map[string]T`. */
  | { readonly map: GoType }
  | { readonly ptr: GoType };

/** One struct field: its JSON key, type and tag options. */
export interface GoField {
  readonly key: string;
  readonly type: GoType;
  readonly omitempty?: boolean;
  readonly omitzero?: boolean;
}

type Obj = Readonly<Record<string, unknown>>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isNil = (v: unknown): boolean => v === undefined || v === null;

// Go's isEmptyValue: false, 0, "", and nil or zero-length pointers, interfaces, slices and maps.
// A (non-pointer) struct is never empty.
function isEmpty(type: GoType, v: unknown): boolean {
  if (isNil(v)) return typeof type === 'string' ? type !== 'time' : !('struct' in type);
  if (type === 'string') return v === '';
  if (type === 'bool') return v === false;
  if (type === 'int') return v === 0 || v === 0n;
  if (type === 'time' || type === 'any') return false;
  if ('slice' in type) return Array.isArray(v) && v.length === 0;
  if ('map' in type) return isObj(v) && Object.keys(v).length === 0;
  return false;
}

// `omitzero`: the zero value (a nil slice or map, not an empty one); for metav1.Time, its
// IsZero method.
function isZero(type: GoType, v: unknown): boolean {
  if (isNil(v)) return true;
  if (type === 'time') return v === '' || (typeof v === 'string' && goTime(v) === GO_ZERO_TIME);
  if (typeof type === 'object' && 'struct' in type) {
    return isObj(v) && type.struct.every((f) => isZero(f.type, v[f.key]));
  }
  if (typeof type === 'object') return false;
  return isEmpty(type, v);
}

/** The JSON text Go writes for a value `v` of Go type `type` (absent means Go's zero value). */
export function encodeGo(type: GoType, v: unknown): string {
  switch (type) {
    case 'string':
      return isNil(v) ? '""' : typeof v === 'string' ? goString(v) : stringifyJson(v);
    case 'bool':
      return isNil(v) ? 'false' : stringifyJson(v);
    case 'int':
      return isNil(v) ? '0' : stringifyJson(v);
    case 'time':
      return isNil(v) || v === '' ? 'null' : typeof v === 'string' ? goString(goTime(v)) : 'null';
    case 'any':
      return stringifyJson(v ?? null);
  }
  if ('ptr' in type) return isNil(v) ? 'null' : encodeGo(type.ptr, v);
  if ('slice' in type) {
    if (!Array.isArray(v)) return isNil(v) ? 'null' : stringifyJson(v);
    return `[${v.map((x) => encodeGo(type.slice, x)).join(',')}]`;
  }
  if ('map' in type) {
    if (!isObj(v)) return isNil(v) ? 'null' : stringifyJson(v);
    const inner = type.map;
    const mapped = Object.fromEntries(
      Object.entries(v).map(([k, x]) => [k, new RawJson(encodeGo(inner, x))]),
    );
    return goOrderedObject(mapped).text;
  }
  return encodeStruct(type.struct, isObj(v) ? v : {});
}

function encodeStruct(fields: readonly GoField[], v: Obj): string {
  const parts: string[] = [];
  const known = new Set<string>();
  for (const f of fields) {
    known.add(f.key);
    const x = v[f.key];
    if (f.omitempty && isEmpty(f.type, x)) continue;
    if (f.omitzero && isZero(f.type, x)) continue;
    parts.push(`${goString(f.key)}:${encodeGo(f.type, x)}`);
  }
  for (const [k, x] of Object.entries(v)) {
    if (!known.has(k) && x !== undefined) parts.push(`${goString(k)}:${stringifyJson(x)}`);
  }
  return `{${parts.join(',')}}`;
}
