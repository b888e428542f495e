import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IpamError } from '../errors.js';
import { parseSelector } from './selector.js';

const labels = {
  foo: 'bar',
  'projectcalico.org/zone': 'us-east-1a',
  'k8s-app': 'calico-node',
  empty: '',
};

describe('parseSelector matching', () => {
  it.each([
    ['', true],
    ['   ', true],
    ['all()', true],
    ['all( )', true],
    ['global()', true],
    ['foo == "bar"', true],
    ["foo == 'bar'", true],
    ['foo=="bar"', true],
    ['foo == "baz"', false],
    ['missing == ""', false],
    ['empty == ""', true],
    ['foo != "bar"', false],
    ['foo != "baz"', true],
    ['missing != "bar"', true],
    ['has(foo)', true],
    ['has( foo )', true],
    ['has(missing)', false],
    ['!has(missing)', true],
    ['!has(foo)', false],
    ['!!has(foo)', true],
    ['foo in {"a", "bar"}', true],
    ['foo in {"a","b"}', false],
    ['foo in {}', false],
    ['missing in {"bar"}', false],
    ['foo not in {"a","b"}', true],
    ['foo not in {"bar"}', false],
    ['missing not in {"bar"}', true],
    ['foo contains "a"', true],
    ['foo contains "x"', false],
    ['missing contains ""', false],
    ['foo starts with "ba"', true],
    ['foo starts with "ar"', false],
    ['foo ends with "ar"', true],
    ['foo ends with "ba"', false],
    ['projectcalico.org/zone == "us-east-1a"', true],
    ['k8s-app == "calico-node"', true],
    ['foo == "bar" && k8s-app == "calico-node"', true],
    ['foo == "bar" && k8s-app == "x"', false],
    ['foo == "x" || k8s-app == "calico-node"', true],
    ['foo == "x" || k8s-app == "y"', false],
    ['foo == "x" || foo == "y" && has(foo)', false],
    ['foo == "bar" || foo == "y" && has(missing)', true],
    ['(foo == "bar" || foo == "y") && has(missing)', false],
    ['!(foo == "bar")', false],
    ['!foo == "bar"', false],
    ['!(has(missing) || foo == "x")', true],
    ['((all()))', true],
  ])('%j -> %s', (text, expected) => {
    expect(parseSelector(text).matches(labels)).toBe(expected);
  });

  it('keeps the source text and caches by text', () => {
    const s = parseSelector('foo == "bar"');
    expect(s.source).toBe('foo == "bar"');
    expect(parseSelector('foo == "bar"')).toBe(s);
  });

  it('does not read inherited properties as labels', () => {
    expect(parseSelector('has(toString)').matches({})).toBe(false);
    expect(parseSelector('constructor != "x"').matches({})).toBe(true);
  });

  it('k == v agrees with direct lookup (property)', () => {
    const key = fc.stringMatching(/^[a-z][a-z0-9._/-]{0,10}$/);
    const value = fc.string().filter((s) => !s.includes('"'));
    fc.assert(
      fc.property(key, value, fc.dictionary(key, value), (k, v, ls) => {
        const eq = parseSelector(`${k} == "${v}"`).matches(ls);
        const ne = parseSelector(`${k} != "${v}"`).matches(ls);
        expect(eq).toBe(Object.hasOwn(ls, k) && ls[k] === v);
        expect(ne).toBe(!eq);
      }),
    );
  });
});

describe('parseSelector syntax errors', () => {
  it.each([
    ['foo = "bar"', 'expected ==', 4],
    ['foo == bar', 'expected string', 7],
    ['foo == "bar', 'unterminated string', 7],
    ["foo == 'bar", 'unterminated string', 7],
    ['foo', 'unexpected end of selector', 3],
    ['foo bar', "expected an operator after label 'foo'", 4],
    ['foo starts "x"', "expected an operator after label 'foo'", 4],
    ['foo not "x"', "expected an operator after label 'foo'", 4],
    ['foo in "x"', 'expected set literal', 7],
    ['foo in {"a" "b"}', 'expected }', 12],
    ['foo in {"a",', 'expected }', 12],
    ['has()', 'no label name in has( expression', 4],
    ['has(foo', "no closing ')' after has(", 7],
    ['all(x)', "no closing ')' after all(", 4],
    ['(foo == "bar"', 'expected )', 13],
    ['foo == "bar")', 'unexpected content at end of selector', 12],
    ['foo == "bar" &', 'expected &&', 13],
    ['foo == "bar" |', 'expected ||', 13],
    ['foo == "bar" &&', 'unexpected end of selector', 15],
    ['&& foo == "bar"', "unexpected token 'and'", 0],
    ['foo == "bar" all()', 'unexpected content at end of selector', 13],
    ['#', 'unexpected characters', 0],
    ['!', 'unexpected end of selector', 1],
  ])('%j: %s at %d', (text, what, pos) => {
    let caught: unknown;
    try {
      parseSelector(text);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(IpamError);
    expect(caught).toMatchObject({
      code: 'InvalidArgument',
      message: `invalid selector ${JSON.stringify(text)}: ${what} at ${pos}`,
    });
  });

  it('refuses over-long label keys', () => {
    expect(() => parseSelector(`has(${'a'.repeat(513)})`)).toThrow(/longer than 512/);
    expect(parseSelector(`has(${'a'.repeat(512)})`).matches({})).toBe(false);
  });
});
