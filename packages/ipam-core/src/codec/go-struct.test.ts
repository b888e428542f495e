import { describe, expect, it } from 'vitest';
import { CONDITION, IP_POOL, NODE, OBJECT_META } from './calico-schemas.js';
import { encodeGo } from './go-struct.js';
import type { GoType } from './go-struct.js';

describe('encodeGo (json.Marshal of the struct a value stands for)', () => {
  it('writes fields in declaration order whatever the input order', () => {
    const text = encodeGo(CONDITION, {
      message: 'm',
      reason: 'OK',
      lastTransitionTime: '2026-01-01T00:00:00.123Z',
      status: 'True',
      type: 'Allocatable',
    });
    expect(text).toBe(
      '{"type":"Allocatable","status":"True","lastTransitionTime":"2026-01-01T00:00:00Z","reason":"OK","message":"m"}',
    );
  });

  it('writes absent fields without omitempty as their zero values', () => {
    expect(encodeGo(CONDITION, {})).toBe(
      '{"type":"","status":"","lastTransitionTime":null,"reason":"","message":""}',
    );
  });

  it.each([
    ['an absent', undefined, ''],
    ['a false', false, ''],
    ['a true', true, ',"natOutgoing":true'],
  ])('omitempty drops %s bool only when it is empty', (_, natOutgoing, expected) => {
    expect(encodeGo(IP_POOL, { spec: { cidr: '10.0.0.0/8', natOutgoing } })).toBe(
      `{"metadata":{},"spec":{"cidr":"10.0.0.0/8"${expected}}}`,
    );
  });

  it('never omits a struct value: a Node without spec or status gets {} for each', () => {
    expect(encodeGo(NODE, { metadata: { name: 'n' } })).toBe(
      '{"metadata":{"name":"n"},"spec":{},"status":{}}',
    );
  });

  it('omits a zero creationTimestamp (omitzero) and sorts labels', () => {
    expect(
      encodeGo(OBJECT_META, {
        labels: { b: '2', a: '1', A: '0' },
        creationTimestamp: null,
        name: 'x',
      }),
    ).toBe('{"name":"x","labels":{"A":"0","a":"1","b":"2"}}');
    expect(encodeGo(OBJECT_META, { creationTimestamp: '0001-01-01T00:00:00Z' })).toBe('{}');
  });

  it('writes nil slices, maps and pointers as null, empty ones as [] and {}', () => {
    const t: GoType = {
      struct: [
        { key: 's', type: { slice: 'int' } },
        { key: 'm', type: { map: 'int' } },
        { key: 'p', type: { ptr: 'bool' } },
      ],
    };
    expect(encodeGo(t, {})).toBe('{"s":null,"m":null,"p":null}');
    expect(encodeGo(t, { s: [], m: {}, p: false })).toBe('{"s":[],"m":{},"p":false}');
  });

  it('keeps keys it does not know after the known ones', () => {
    expect(encodeGo(NODE, { zz: 1, metadata: { name: 'n', extra: 'x' } })).toBe(
      '{"metadata":{"name":"n","extra":"x"},"spec":{},"status":{},"zz":1}',
    );
  });
});
