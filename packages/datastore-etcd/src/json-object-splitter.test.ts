import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createJsonObjectSplitter } from './json-object-splitter.js';

// A watch stream as etcd's gateway writes it (one object per line), with strings that hold
// braces, escaped quotes, backslashes and non-ASCII text, so a cut inside a string matters.
const MESSAGES: unknown[] = [
  { result: { header: { revision: '5' }, created: true } },
  {
    result: {
      header: { revision: '6' },
      events: [{ kv: { key: 'L2E=', value: 'eyJ9In0=' } }, { type: 'DELETE', kv: { key: 'L2I=' } }],
    },
  },
  { result: { header: { revision: '7' }, canceled: true, cancel_reason: 'a "}{" \\ reason é€😀' } },
  { error: { grpc_code: 14, message: '}}}' } },
];
const STREAM = MESSAGES.map((m) => `${JSON.stringify(m)}\n`).join('');

/** Splits `text` at the given offsets and feeds the pieces to a new splitter. */
function feed(text: string, cuts: number[]): unknown[] {
  const splitter = createJsonObjectSplitter();
  const out: unknown[] = [];
  let from = 0;
  for (const cut of [...new Set(cuts)].sort((a, b) => a - b)) {
    out.push(...splitter.push(text.slice(from, cut)));
    from = cut;
  }
  out.push(...splitter.push(text.slice(from)));
  expect(splitter.partial).toBe(false);
  return out;
}

describe('createJsonObjectSplitter', () => {
  it('yields every object of a stream in one piece', () => {
    expect(feed(STREAM, [])).toEqual(MESSAGES);
  });

  it('yields every object, once and in order, when the stream is cut after each character', () => {
    expect(
      feed(
        STREAM,
        Array.from({ length: STREAM.length }, (_, i) => i),
      ),
    ).toEqual(MESSAGES);
  });

  it('yields the same objects however the stream is cut', () => {
    fc.assert(
      fc.property(fc.array(fc.nat({ max: STREAM.length }), { maxLength: 40 }), (cuts) => {
        expect(feed(STREAM, cuts)).toEqual(MESSAGES);
      }),
    );
  });

  it('needs no separator between objects, and skips whitespace between them', () => {
    const splitter = createJsonObjectSplitter();
    expect(splitter.push(' {"a":1}{"b":{"c":"}"}}\r\n\t{"d"')).toEqual([
      { a: 1 },
      { b: { c: '}' } },
    ]);
    expect(splitter.partial).toBe(true);
    expect(splitter.push(':2}')).toEqual([{ d: 2 }]);
    expect(splitter.partial).toBe(false);
  });

  it('holds back an unfinished object', () => {
    const splitter = createJsonObjectSplitter();
    expect(splitter.push('{"result":{"header":{"revision":"5"}')).toEqual([]);
    expect(splitter.partial).toBe(true);
  });

  it.each([
    ['text between objects', '{"a":1}x{"b":2}'],
    ['a bare value', '"s"'],
    ['an object that does not parse', '{"a":}'],
  ])('throws on %s', (_what, text) => {
    expect(() => createJsonObjectSplitter().push(text)).toThrow();
  });
});
