// Reading and writing the part of a stored JSON object that its model has no field for
// (`StoredJson`): how empty fields were stored, and keys the model does not know.
import type { StoredJson, UnknownJsonKey } from '../model/stored-json.js';
import type { Obj } from './decode-fields.js';
import { isObj } from './decode-fields.js';
import { goString, stringifyJson } from './json.js';

/** How each key of a stored object reads when empty: see {@link readStoredJson}. */
export type EmptyRule =
  /** A Go field that is never omitted (a slice or map): `null` or absent was Go's nil. */
  | 'nil'
  /** An `omitempty` field: an explicit `null`, or for a map `{}`, is kept as stored. */
  | 'omitempty';

/**
 * What of `o` the model will not carry: empty fields stored as `null` (or `{}` where Go would
 * omit them), by `rules`, and keys not in `known`. Undefined when there is nothing to keep.
 */
export function readStoredJson(
  o: Obj,
  known: readonly string[],
  rules: Readonly<Record<string, EmptyRule>>,
): StoredJson | undefined {
  const emptyAs: Record<string, 'null' | '{}'> = {};
  for (const [key, rule] of Object.entries(rules)) {
    const v = o[key];
    if (v === null || (v === undefined && rule === 'nil')) emptyAs[key] = 'null';
    else if (rule === 'omitempty' && isObj(v) && Object.keys(v).length === 0) emptyAs[key] = '{}';
  }
  const unknownKeys: UnknownJsonKey[] = [];
  let after = '';
  for (const [key, value] of Object.entries(o)) {
    if (known.includes(key)) after = key;
    else unknownKeys.push({ after, key, value });
  }
  const hasEmpty = Object.keys(emptyAs).length > 0;
  if (!hasEmpty && unknownKeys.length === 0) return undefined;
  return { ...(hasEmpty && { emptyAs }), ...(unknownKeys.length > 0 && { unknownKeys }) };
}

/** A field to write: its key and JSON text, or `undefined` to leave it out. */
export type FieldText = readonly [key: string, json: string | undefined];

/**
 * The JSON text for an empty field: as it was stored (`stored.emptyAs`), else `fallback`
 * (`undefined` leaves the field out).
 */
export function emptyText(
  stored: StoredJson | undefined,
  key: string,
  fallback: string | undefined,
): string | undefined {
  return stored?.emptyAs?.[key] ?? fallback;
}

/**
 * Writes an object: `fields` in order, then each unknown key of `stored` right after the known key
 * it followed when read (at the start for `''`, at the end when that key is not among `fields`).
 */
export function writeObject(fields: readonly FieldText[], stored?: StoredJson): string {
  const unknown = stored?.unknownKeys ?? [];
  const parts: string[] = [];
  const placed = new Set<UnknownJsonKey>();
  const place = (after: string): void => {
    for (const u of unknown) {
      if (u.after === after && !placed.has(u)) {
        placed.add(u);
        parts.push(`${goString(u.key)}:${stringifyJson(u.value)}`);
      }
    }
  };
  place('');
  for (const [key, json] of fields) {
    if (json !== undefined) parts.push(`${goString(key)}:${json}`);
    place(key);
  }
  for (const u of unknown) {
    if (!placed.has(u)) parts.push(`${goString(u.key)}:${stringifyJson(u.value)}`);
  }
  return `{${parts.join(',')}}`;
}
