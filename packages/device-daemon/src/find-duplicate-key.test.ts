import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findDuplicateKey } from './find-duplicate-key.js';

describe('findDuplicateKey', () => {
  it.each([
    ['{"a":1,"a":2}', { path: [], key: 'a' }],
    ['{"a":{"b":1,"c":{"b":2},"b":3}}', { path: ['a'], key: 'b' }],
    ['[{"x":1},{"y":[0,{"z":1,"z":1}]}]', { path: [1, 'y', 1], key: 'z' }],
    ['{"k\\"ey":1,"k\\u0022ey":2}', { path: [], key: 'k"ey' }],
    ['{ "s" : "{\\"a\\":1,\\"a\\":2}" , "s" : 0 }', { path: [], key: 's' }],
  ])('finds the repeated key in %s', (text, found) => {
    expect(findDuplicateKey(text)).toEqual(found);
  });

  it.each([
    '{}',
    '[]',
    '"a"',
    '{"a":{"a":{"a":1}}}',
    '[{"a":1},{"a":2}]',
    '{"a":"a","b":"a"}',
    '{"a":[1,-2.5e3,true,false,null],"b":{}}',
    '{"x":{"y":1},"y":2}',
  ])('finds none in %s (equal keys in different objects, equal values)', (text) => {
    expect(findDuplicateKey(text)).toBeUndefined();
  });

  it('scans nesting deeper than a recursive scan could', () => {
    const depth = 100_000;
    const text = '['.repeat(depth) + '{"a":1,"a":2}' + ']'.repeat(depth);
    expect(findDuplicateKey(text)?.key).toBe('a');
  });

  it('agrees with JSON.parse: a document has a duplicate exactly when a key is lost', () => {
    // Objects from short keys only, so collisions are frequent; a duplicate is one JSON.parse drops.
    const key = fc.constantFrom('a', 'b', 'c', 'a\\u0062');
    const value: fc.Arbitrary<string> = fc.letrec<{ v: string }>((tie) => ({
      v: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        fc.constantFrom('1', 'null', '"x"', 'true'),
        fc.array(tie('v'), { maxLength: 3 }).map((xs) => `[${xs.join(',')}]`),
        fc
          .array(fc.tuple(key, tie('v')), { maxLength: 4 })
          .map((kv) => `{${kv.map(([k, v]) => `"${k}":${v}`).join(',')}}`),
      ),
    })).v;
    fc.assert(
      fc.property(value, (text) => {
        const parsed = JSON.parse(text) as unknown;
        const count = (t: string): number => (t.match(/":/g) ?? []).length;
        // Every key written survives the round trip unless one repeats in its object.
        const kept = count(JSON.stringify(parsed));
        expect(findDuplicateKey(text) !== undefined).toBe(kept < count(text));
      }),
    );
  });
});
