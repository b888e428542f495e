import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJson, stringifyJson } from './json.js';
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
