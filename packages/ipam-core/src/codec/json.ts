/**
 * JSON with exact integers, written the way Go's `encoding/json` writes it. `parseJson` returns
 * integers outside the safe range as `bigint` (Calico's uint64 sequence numbers exceed 2^53), and
 * `stringifyJson` writes `bigint` as a bare number. Strings are escaped as Go escapes them, so a
 * value netledger writes is byte for byte what Calico would write for the same data. Node 20's
 * `JSON.parse` cannot do the integers (its reviver sees the number already rounded).
 */
export type JsonValue =
  null | boolean | number | bigint | string | JsonValue[] | { [key: string]: JsonValue };

/** Pre-serialised JSON that `stringifyJson` writes verbatim. */
export class RawJson {
  constructor(readonly text: string) {}
}

// What Go's encoder escapes beyond what JSON.stringify does: `<`, `>` and `&` (its HTML-safe
// default) and U+2028/U+2029, always as \u00XX / \u202X with lower-case hex
// (encoding/json/encode.go, appendString).
const GO_EXTRA_ESCAPES = /[<>&\u2028\u2029]/g;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
// A string with none of these (names, CIDRs, handle ids: nearly every one) is written as it is,
// quoted: JSON.stringify escapes only `"`, `\`, control characters and lone surrogates, and Go
// additionally only the characters of GO_EXTRA_ESCAPES.
// eslint-disable-next-line no-control-regex -- control characters are what must be escaped
const NEEDS_ESCAPE = /[\u0000-\u001f"\\<>&\u2028\u2029\ud800-\udfff]/;
const goEscape = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * A JSON string literal as Go's `encoding/json` writes it: the escapes of `JSON.stringify` (which
 * match Go's for `"`, `\\`, control characters and `\b \f \n \r \t`), plus `\u003c`, `\u003e`,
 * `\u0026`, `\u2028` and `\u2029`. A lone surrogate, which a Go string cannot hold (Go decodes
 * one to U+FFFD), is written as U+FFFD.
 */
export function goString(s: string): string {
  if (!NEEDS_ESCAPE.test(s)) return `"${s}"`;
  return JSON.stringify(s.replace(LONE_SURROGATE, '\ufffd')).replace(GO_EXTRA_ESCAPES, goEscape);
}

/**
 * Orders map keys as Go's encoder does: by their UTF-8 bytes, which is code point order (not the
 * UTF-16 order of `Array.prototype.sort`, which differs above U+FFFF).
 */
export function compareGoKeys(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(i)!;
    if (x !== y) return x - y;
    if (x > 0xffff) i++;
  }
  return a.length - b.length;
}

/**
 * A JSON object with keys in Go's order for a map (sorted, see {@link compareGoKeys}). A plain JS
 * object cannot carry that order: integer-like keys ("10", "2") are always enumerated numerically.
 */
export function goOrderedObject(map: Readonly<Record<string, unknown>>): RawJson {
  const keys = Object.keys(map).sort(compareGoKeys);
  return new RawJson(`{${keys.map((k) => `${goString(k)}:${stringifyJson(map[k])}`).join(',')}}`);
}

/** Thrown for malformed JSON text. */
export class JsonSyntaxError extends SyntaxError {
  override readonly name = 'JsonSyntaxError';
}

const WS = new Set([' ', '\t', '\n', '\r']);
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

// An integer literal of 16+ digits in value position. Used only for the fast path: a match inside
// a string literal makes the rewritten text invalid JSON (the inserted quote ends the string and
// the marker's backslash cannot start a token), so such text falls back to the exact parser.
// Value position (after `:`, `[`, `,` or at the start, whitespace aside) is checked per match by
// `inValuePosition`: as a lookbehind in the pattern it was tried at every character of the text,
// which tripled the time of the scan. No match can start inside a rejected one (it would follow a
// digit or `-`), so skipping past a rejected match finds the same literals.
const BIG_LITERAL = /-?\d{16,}(?=\s*(?:[,}\]]|$))/g;
const WHITESPACE = /\s/;

function inValuePosition(text: string, at: number): boolean {
  let i = at - 1;
  while (i >= 0 && WHITESPACE.test(text[i]!)) i--;
  return i < 0 || text[i] === ':' || text[i] === '[' || text[i] === ',';
}

const MARKER = '\u0000big:';

function restoreBigInts(v: JsonValue): JsonValue {
  if (typeof v === 'string') return v.startsWith(MARKER) ? toNumber(v.slice(MARKER.length)) : v;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) v[i] = restoreBigInts(v[i]!);
  } else if (v !== null && typeof v === 'object') {
    for (const k of Object.keys(v)) v[k] = restoreBigInts(v[k]!);
  }
  return v;
}

function toNumber(literal: string): number | bigint {
  const n = Number(literal);
  return Number.isSafeInteger(n) ? n : BigInt(literal);
}

/** Parses JSON text; unsafe integers come back as `bigint`. Throws {@link JsonSyntaxError}. */
export function parseJson(text: string): JsonValue {
  let replaced = false;
  const fast = text.replace(BIG_LITERAL, (m: string, at: number) => {
    if (!inValuePosition(text, at)) return m;
    replaced = true;
    return `"\\u0000big:${m}"`;
  });
  try {
    const v = JSON.parse(fast) as JsonValue;
    return replaced ? restoreBigInts(v) : v;
  } catch {
    return parseJsonExactly(text);
  }
}

// A member as JSON.parse sets it: an own data property, even for a key such as `__proto__`.
function setMember(out: { [key: string]: JsonValue }, key: string, value: JsonValue): void {
  Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
}

/** The number at `at` in `text`, a `bigint` for an integer beyond 2^53, and where it ends. */
function numberAt(text: string, at: number): { value: number | bigint; end: number } | undefined {
  NUMBER.lastIndex = at;
  const m = NUMBER.exec(text);
  if (!m) return undefined;
  const n = Number(m[0]);
  const exact = Number.isInteger(n) && !Number.isSafeInteger(n) && /^-?\d+$/.test(m[0]);
  return { value: exact ? BigInt(m[0]) : n, end: at + m[0].length };
}

/** The exact (slow) parser: a full tokenizer that never rounds an integer. */
function parseJsonExactly(text: string): JsonValue {
  let i = 0;
  const fail = (what: string): never => {
    throw new JsonSyntaxError(`${what} at position ${i}`);
  };
  const skip = (): void => {
    while (i < text.length && WS.has(text[i]!)) i++;
  };
  const value = (): JsonValue => {
    skip();
    const c = text[i];
    if (c === '{') {
      i++;
      const out: { [key: string]: JsonValue } = {};
      skip();
      if (text[i] === '}') return (i++, out);
      for (;;) {
        skip();
        if (text[i] !== '"') fail('expected a string key');
        const k = str();
        skip();
        if (text[i] !== ':') fail("expected ':'");
        i++;
        setMember(out, k, value());
        skip();
        if (text[i] === ',') i++;
        else if (text[i] === '}') return (i++, out);
        else fail("expected ',' or '}'");
      }
    }
    if (c === '[') {
      i++;
      const out: JsonValue[] = [];
      skip();
      if (text[i] === ']') return (i++, out);
      for (;;) {
        out.push(value());
        skip();
        if (text[i] === ',') i++;
        else if (text[i] === ']') return (i++, out);
        else fail("expected ',' or ']'");
      }
    }
    if (c === '"') return str();
    if (text.startsWith('true', i)) return ((i += 4), true);
    if (text.startsWith('false', i)) return ((i += 5), false);
    if (text.startsWith('null', i)) return ((i += 4), null);
    const num = numberAt(text, i);
    if (!num) return fail('unexpected character');
    i = num.end;
    return num.value;
  };
  const str = (): string => {
    const start = i;
    i++;
    for (;;) {
      const c = text[i];
      if (c === undefined) fail('unterminated string');
      if (c === '"') break;
      if (c === '\\') i++;
      else if (c! < ' ') fail('control character in string');
      i++;
    }
    i++;
    // The escapes are JSON.parse's to check (`\ ` is not one): its error is ours too.
    try {
      return JSON.parse(text.slice(start, i)) as string;
    } catch (e) {
      return fail(`invalid string (${(e as Error).message})`);
    }
  };
  const out = value();
  skip();
  if (i !== text.length) fail('trailing characters');
  return out;
}

/**
 * Serialises like `JSON.stringify(value)`, writing `bigint` as a bare integer and strings (and
 * keys) with Go's escapes ({@link goString}); with `options.indent`, laid out as Go's
 * `json.MarshalIndent`. Object keys keep their order; `undefined` and function members are left
 * out (`null` in an array); a {@link RawJson} is written verbatim. `options.indent`: the
 * indentation per level, as `json.MarshalIndent(v, "", indent)` (one member per line, `": "`
 * after a key, `[]` and `{}` when empty); default `''`, one line as `json.Marshal`.
 */
export function stringifyJson(value: unknown, options: { readonly indent?: string } = {}): string {
  return write(value, { indent: options.indent ?? '', prefix: '' });
}

/** Where a value is written: the indentation per level ('' for one line) and its line's prefix. */
interface Layout {
  readonly indent: string;
  readonly prefix: string;
}

function write(value: unknown, layout: Layout): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'bigint':
      return value.toString();
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'string':
      return goString(value);
    case 'object': {
      if (value instanceof RawJson) return value.text;
      const inner: Layout = { indent: layout.indent, prefix: layout.prefix + layout.indent };
      if (Array.isArray(value)) {
        const items = value.map((v: unknown) => (v === undefined ? 'null' : write(v, inner)));
        return enclose(['[', ']'], items, layout);
      }
      const colon = layout.indent === '' ? ':' : ': ';
      const parts: string[] = [];
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
        if (v === undefined || typeof v === 'function') continue;
        parts.push(`${goString(k)}${colon}${write(v, inner)}`);
      }
      return enclose(['{', '}'], parts, layout);
    }
    default:
      return 'null';
  }
}

/** The members of an array or object between its brackets, on one line or one per line. */
function enclose(brackets: readonly [string, string], items: string[], layout: Layout): string {
  const [open, close] = brackets;
  if (layout.indent === '' || items.length === 0) return `${open}${items.join(',')}${close}`;
  const inner = layout.prefix + layout.indent;
  return `${open}\n${inner}${items.join(`,\n${inner}`)}\n${layout.prefix}${close}`;
}
