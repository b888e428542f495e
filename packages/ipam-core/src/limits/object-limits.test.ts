import { describe, expect, it } from 'vitest';
import { IpamError } from '../errors.js';
import {
  MAX_ANNOTATIONS_BYTES,
  MAX_OBJECT_BYTES,
  annotationsProblems,
  assertObjectSize,
  dns1123LabelProblem,
  dns1123SubdomainProblem,
  labelKeyProblem,
  labelValueProblem,
  utf8ByteLength,
  validateObjectMeta,
} from './object-limits.js';

// Cases from Kubernetes' own tables (apimachinery validation_test.go, objectmeta_test.go).
describe('label keys (Kubernetes qualified names)', () => {
  it.each([
    'simple',
    'now-with-dashes',
    '1-starts-with-num',
    '1234',
    'simple/simple',
    'now-with-dashes/simple',
    'now.with.dots/simple',
    '1-num.2-num/3-num',
    'UpperCase123',
    'with_underscore',
    `${'a'.repeat(253)}/${'b'.repeat(63)}`,
  ])('accepts %s', (key) => {
    expect(labelKeyProblem(key)).toBeUndefined();
  });

  it.each([
    ['nospecialchars^=@', /name part must consist of alphanumeric/],
    ['cantendwithadash-', /name part must consist/],
    ['only/one/slash', /one '\/'/],
    ['/name', /prefix part must not be empty/],
    ['prefix/', /name part must not be empty/],
    ['', /name part must not be empty/],
    ['Upper.Case/name', /prefix part must consist of lower case/],
    [`${'a'.repeat(254)}/name`, /prefix part must be no more than 253 bytes \(is 254\)/],
    ['a'.repeat(64), /name part must be no more than 63 bytes \(is 64\)/],
    ['é', /name part must consist/],
  ])('refuses %j', (key, why) => {
    expect(labelKeyProblem(key)).toMatch(why);
  });
});

describe('label values', () => {
  it.each(['', 'simple', 'now-with-dashes', 'a_b.c-d', '1234', 'x'.repeat(63)])(
    'accepts %j',
    (v) => {
      expect(labelValueProblem(v)).toBeUndefined();
    },
  );
  it.each([
    ['x'.repeat(64), /no more than 63 bytes \(is 64\)/],
    ['-starts', /must be empty, or consist/],
    ['has space', /must be empty, or consist/],
    ['ends.', /must be empty, or consist/],
  ])('refuses %j', (v, why) => {
    expect(labelValueProblem(v)).toMatch(why);
  });
});

describe('DNS-1123 names', () => {
  it.each([
    ['a', undefined, undefined],
    ['a.b-c', undefined, /must not contain dots/],
    ['a'.repeat(63), undefined, undefined],
    ['a'.repeat(64), undefined, /no more than 63 bytes/],
    ['a'.repeat(253), undefined, /no more than 63 bytes/],
    ['a'.repeat(254), /no more than 253 bytes/, /no more than 63 bytes/],
    ['A', /lower case/, /lower case/],
    ['-a', /lower case/, /lower case/],
  ])('%j: subdomain %s, label %s', (value, subdomain, label) => {
    const s = dns1123SubdomainProblem(value);
    const l = dns1123LabelProblem(value);
    if (subdomain === undefined) expect(s).toBeUndefined();
    else expect(s).toMatch(subdomain);
    if (label === undefined) expect(l).toBeUndefined();
    else expect(l).toMatch(label);
  });
});

describe('annotations', () => {
  it('counts keys and values in bytes, allowing exactly 256 KiB', () => {
    expect(annotationsProblems({ a: 'b'.repeat(MAX_ANNOTATIONS_BYTES - 1) })).toEqual([]);
    expect(
      annotationsProblems({
        a: 'b'.repeat(MAX_ANNOTATIONS_BYTES / 2 - 1),
        c: 'd'.repeat(MAX_ANNOTATIONS_BYTES / 2 - 1),
      }),
    ).toEqual([]);
    const [problem] = annotationsProblems({ a: 'b'.repeat(MAX_ANNOTATIONS_BYTES) });
    expect(problem).toBe(
      "metadata.annotations total 262145 bytes (keys and values), over Kubernetes' limit of 262144 bytes (256 KiB) by 1",
    );
    // Multi-byte characters count as the bytes they take.
    expect(annotationsProblems({ a: 'é'.repeat(MAX_ANNOTATIONS_BYTES / 2) })).toHaveLength(1);
  });

  it('checks keys as label keys, whatever their case', () => {
    expect(annotationsProblems({ 'Example.COM/Key': 'v', UpperCase: 'v' })).toEqual([]);
    expect(annotationsProblems({ 'only/one/slash': 'v' })).toEqual([
      expect.stringMatching(/^metadata.annotations key "only\/one\/slash" must be a name/),
    ]);
  });
});

describe('validateObjectMeta', () => {
  it('returns the name of valid metadata', () => {
    expect(
      validateObjectMeta('IPPool', {
        name: 'p1',
        labels: { 'example.com/zone': 'a', empty: '' },
        annotations: { note: 'x'.repeat(1000) },
      }),
    ).toBe('p1');
  });

  it('refuses with InvalidArgument naming the kind, the object and every limit broken', () => {
    const huge = 'x'.repeat(50 * 1024 * 1024);
    let caught: unknown;
    try {
      validateObjectMeta('IPPool', {
        name: 'big-pool',
        labels: { 'a/b/c': 'ok', zone: 'not valid' },
        annotations: { blob: huge },
      });
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(IpamError);
    expect(caught).toMatchObject({ code: 'InvalidArgument', identifier: 'big-pool' });
    const message = (caught as Error).message;
    expect(message).toMatch(/^invalid IPPool "big-pool": /);
    expect(message).toContain('metadata.labels key "a/b/c"');
    expect(message).toContain('metadata.labels["zone"] value "not valid"');
    expect(message).toContain(
      `metadata.annotations total ${4 + huge.length} bytes (keys and values), over Kubernetes' limit of 262144 bytes (256 KiB)`,
    );
    // The 50 MB value itself is not echoed.
    expect(message.length).toBeLessThan(1000);
  });

  it('refuses a missing or malformed name', () => {
    expect(() => validateObjectMeta('Node', {})).toThrow(/metadata.name must be specified/);
    expect(() => validateObjectMeta('Node', { name: 'a'.repeat(254) })).toThrow(
      /metadata.name must be no more than 253 bytes \(is 254\)/,
    );
  });
});

describe('assertObjectSize', () => {
  const key = { kind: 'IPPool', name: 'p1' } as const;

  it('allows exactly 1.5 MiB and refuses one byte more, naming the key and the limit', () => {
    expect(MAX_OBJECT_BYTES).toBe(1572864);
    expect(() => assertObjectSize(key, 'x'.repeat(MAX_OBJECT_BYTES))).not.toThrow();
    expect(() => assertObjectSize(key, 'x'.repeat(MAX_OBJECT_BYTES + 1))).toThrow(
      expect.objectContaining({
        code: 'InvalidArgument',
        identifier: '/calico/resources/v3/projectcalico.org/ippools/p1',
        message: expect.stringContaining(
          'over the limit of 1572864 bytes (1.5 MiB',
        ) as unknown as string,
      }),
    );
  });

  it('counts UTF-8 bytes, not characters', () => {
    // 600,000 three-byte characters: 1.8 MB, though only 600,000 characters.
    expect(() => assertObjectSize(key, '€'.repeat(600_000))).toThrow(/1800000 bytes/);
    expect(utf8ByteLength('a€😀é')).toBe(1 + 3 + 4 + 2);
    expect(utf8ByteLength('\ud800x')).toBe(3 + 1);
  });
});
