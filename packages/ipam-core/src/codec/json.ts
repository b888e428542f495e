/**
 * JSON with exact integers: `parseJson` returns integers outside the safe range as `bigint`
 * (Calico's uint64 sequence numbers exceed 2^53), and `stringifyJson` writes `bigint` as a bare
 * number. Everything else is standard JSON. Node 20's `JSON.parse` cannot do this (its reviver
 * sees the number already rounded).
 */
export type JsonValue =
  null | boolean | number | bigint | string | JsonValue[] | { [key: string]: JsonValue };

/** Pre-serialised JSON that `stringifyJson` writes verbatim. */
export class RawJson {
  constructor(readonly text: string) {}
}

/**
 * A JSON object with keys in Go's order (sorted as strings). A plain JS object cannot carry that
 * order: integer-like keys ("10", "2") are always enumerated numerically.
 */
export function goOrderedObject(map: Readonly<Record<string, unknown>>): RawJson {
  const keys = Object.keys(map).sort();
  return new RawJson(
    `{${keys.map((k) => `${JSON.stringify(k)}:${stringifyJson(map[k])}`).join(',')}}`,
  );
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
const BIG_LITERAL = /(?<=(?:^|[:[,])\s*)(-?\d{16,})(?=\s*(?:[,}\]]|$))/g;
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
  const fast = text.replace(BIG_LITERAL, (m) => {
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
        Object.defineProperty(out, k, {
          value: value(),
          enumerable: true,
          writable: true,
          configurable: true,
        });
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
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(text);
    if (!m) return fail('unexpected character');
    i += m[0].length;
    const n = Number(m[0]);
    if (Number.isInteger(n) && !Number.isSafeInteger(n) && /^-?\d+$/.test(m[0]))
      return BigInt(m[0]);
    return n;
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
    return JSON.parse(text.slice(start, i)) as string;
  };
  const out = value();
  skip();
  if (i !== text.length) fail('trailing characters');
  return out;
}

/** Serialises like `JSON.stringify(value)` (no indentation), writing `bigint` as a bare integer. */
export function stringifyJson(value: unknown): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'bigint':
      return value.toString();
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'string':
      return JSON.stringify(value);
    case 'object': {
      if (value instanceof RawJson) return value.text;
      if (Array.isArray(value)) {
        return `[${value.map((v) => (v === undefined ? 'null' : stringifyJson(v))).join(',')}]`;
      }
      const parts: string[] = [];
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
        if (v === undefined || typeof v === 'function') continue;
        parts.push(`${JSON.stringify(k)}:${stringifyJson(v)}`);
      }
      return `{${parts.join(',')}}`;
    }
    default:
      return 'null';
  }
}
