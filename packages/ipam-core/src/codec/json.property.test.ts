import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { goString, parseJson, stringifyJson } from './json.js';
import type { JsonValue } from './json.js';

// Strings that look like big integers in value position are what could fool the fast path.
const tricky = fc.constantFrom(
  ',12345678901234567890,',
  ':9999999999999999999]',
  '[1234567890123456789}',
  '"x":12345678901234567,',
);
const json: fc.Arbitrary<JsonValue> = fc.letrec<{ v: JsonValue }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc
      .bigInt({ min: -(1n << 64n), max: 1n << 64n })
      .filter((b) => b > BigInt(Number.MAX_SAFE_INTEGER) || b < BigInt(Number.MIN_SAFE_INTEGER)),
    fc.string(),
    tricky,
    fc.array(tie('v'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(fc.string(), tricky), tie('v'), { maxKeys: 4 }),
  ),
})).v;

describe('parseJson', () => {
  it('reads back exactly what stringifyJson wrote, big integers and look-alike strings included', () => {
    fc.assert(
      fc.property(json, (v) => {
        expect(parseJson(stringifyJson(v))).toEqual(v);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('parseJson on text with whitespace and look-alikes', () => {
  const big = 12345678901234567890n;
  it.each<[string, JsonValue]>([
    [' 12345678901234567890 ', big],
    ['[ 12345678901234567890 ,\n\t-12345678901234567890 ]', [big, -big]],
    ['{"a" :\r\n12345678901234567890}', { a: big }],
    ['{"a":"x:12345678901234567890,"}', { a: 'x:12345678901234567890,' }],
    ['{"a":"-12345678901234567890"}', { a: '-12345678901234567890' }],
    ['[1e12345678901234567]', [Infinity]],
    ['[0.12345678901234567890]', [0.12345678901234568]],
    ['[-9007199254740993, 9007199254740991]', [-9007199254740993n, 9007199254740991]],
  ])('reads %j exactly', (text, expected) => {
    expect(parseJson(text)).toEqual(expected);
  });
});

describe('goString', () => {
  // What Go writes, by its definition: JSON.stringify's escapes, lone surrogates as U+FFFD, and
  // <, >, &, U+2028 and U+2029 as \u escapes.
  const reference = (s: string): string =>
    JSON.stringify(
      s.replace(
        /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
        '\ufffd',
      ),
    ).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

  it('writes every string as the definition says, escaped or not', () => {
    const text = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.string({
        unit: fc.constantFrom(
          'a',
          '"',
          '\\',
          '<',
          '&',
          '\u2028',
          '\u0001',
          '\ud800',
          '\udc00',
          'é',
        ),
      }),
    );
    fc.assert(
      fc.property(text, (s) => {
        expect(goString(s)).toBe(reference(s));
      }),
      { numRuns: 3000 },
    );
  });
});
