import { describe, expect, it } from 'vitest';
import { compareGoKeys, goOrderedObject, goString, parseJson, stringifyJson } from './json.js';

describe("Go's string escaping", () => {
  it.each([
    ['a<b>&c', '"a\\u003cb\\u003e\\u0026c"'],
    ['\u2028\u2029', '"\\u2028\\u2029"'],
    ['\u0001\u001f', '"\\u0001\\u001f"'],
    ['\b\f\n\r\t', '"\\b\\f\\n\\r\\t"'],
    ['"\\/', '"\\"\\\\/"'],
    ['\u007f é 😀', '"\u007f é 😀"'],
    // Go's strings cannot hold a lone surrogate; Go reads "\ud800" as U+FFFD.
    ['a\ud800b\udc00', '"a\ufffdb\ufffd"'],
  ])('writes %j as Go does', (s, expected) => {
    expect(goString(s)).toBe(expected);
  });

  // Go 1.26 encoding/json, json.Marshal(map[string]string{"s": "a<b>&c\u2028\u2029\x01\x7f\t\"\\é😀"}).
  it('matches bytes from Go byte for byte and reads them back', () => {
    const fromGo = '{"s":"a\\u003cb\\u003e\\u0026c\\u2028\\u2029\\u0001\u007f\\t\\"\\\\é😀"}';
    const value = parseJson(fromGo);
    expect(value).toEqual({ s: 'a<b>&c\u2028\u2029\u0001\u007f\t"\\é😀' });
    expect(stringifyJson(value)).toBe(fromGo);
  });

  it('escapes object keys too', () => {
    expect(stringifyJson({ '<k>': 1 })).toBe('{"\\u003ck\\u003e":1}');
  });
});

describe("Go's indented layout", () => {
  // Go 1.26 encoding/json, json.MarshalIndent(v, "", "  ") of a struct with the same fields and
  // values (a uint64 at its maximum, empty slices and map, a nil pointer).
  it('matches json.MarshalIndent byte for byte', () => {
    const fromGo =
      '{\n  "name": "a\\u003cb\\u003e\\u0026\\u2028",\n  "inner": {\n    "seq": 18446744073709551615,\n    "tags": [\n      "x",\n      "y"\n    ],\n    "none": [],\n    "map": {},\n    "nil": null\n  },\n  "list": [\n    {\n      "seq": 1,\n      "tags": [],\n      "none": [],\n      "map": {\n        "k": "v"\n      },\n      "nil": null\n    }\n  ],\n  "ok": true\n}';
    const value = {
      name: 'a<b>&\u2028',
      inner: { seq: 18446744073709551615n, tags: ['x', 'y'], none: [], map: {}, nil: null },
      list: [{ seq: 1, tags: [], none: [], map: { k: 'v' }, nil: null, gone: undefined }],
      ok: true,
    };
    expect(stringifyJson(value, { indent: '  ' })).toBe(fromGo);
    expect(parseJson(fromGo)).toEqual(parseJson(stringifyJson(value)));
  });
});

describe('Go map key order', () => {
  it('sorts by UTF-8 bytes (code points), not UTF-16 units', () => {
    const keys = ['\uffff', '😀', 'b', 'B', '10', '2', ''];
    expect([...keys].sort(compareGoKeys)).toEqual(['', '10', '2', 'B', 'b', '\uffff', '😀']);
  });

  it('orders a map the way json.Marshal does', () => {
    expect(goOrderedObject({ '10.1.0.8/29': 1, '10.1.0.16/29': 1, '&': 2 }).text).toBe(
      '{"\\u0026":2,"10.1.0.16/29":1,"10.1.0.8/29":1}',
    );
  });
});
