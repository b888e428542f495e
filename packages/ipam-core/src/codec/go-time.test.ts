import { describe, expect, it } from 'vitest';
import { goTime, goTimeFromMs, goUtcTimestamp } from './go-time.js';

describe('goTime (metav1.Time: UTC, Z, whole seconds)', () => {
  it.each([
    ['2026-03-04T05:06:07Z', '2026-03-04T05:06:07Z'],
    ['2026-03-04T05:06:07.999999999Z', '2026-03-04T05:06:07Z'],
    ['2026-03-04T06:06:07+01:00', '2026-03-04T05:06:07Z'],
    ['2026-03-04T00:30:00-01:30', '2026-03-04T02:00:00Z'],
    ['2026-01-01T00:00:00+00:30', '2025-12-31T23:30:00Z'],
    ['2026-03-04t05:06:07z', '2026-03-04T05:06:07Z'],
    ['0001-01-01T00:00:00Z', '0001-01-01T00:00:00Z'],
  ])('%s -> %s', (input, expected) => {
    expect(goTime(input)).toBe(expected);
  });

  it.each([
    '',
    'yesterday',
    '2026-02-30T00:00:00Z',
    '2026-03-04T24:00:00Z',
    '2026-03-04 05:06:07Z',
  ])('leaves %j, which Go cannot read as a time, unchanged', (input) => {
    expect(goTime(input)).toBe(input);
  });

  it('formats milliseconds since the epoch in whole seconds', () => {
    expect(goTimeFromMs(Date.UTC(2026, 2, 4, 5, 6, 7, 999))).toBe('2026-03-04T05:06:07Z');
  });
});

describe("goUtcTimestamp (Go's time.Now().UTC().String(): the `timestamp` attribute)", () => {
  it.each([
    [Date.UTC(2024, 4, 1, 12, 34, 56, 789), '2024-05-01 12:34:56.789 +0000 UTC'],
    [Date.UTC(2024, 0, 2, 3, 4, 5, 100), '2024-01-02 03:04:05.1 +0000 UTC'],
    [Date.UTC(2024, 0, 2, 3, 4, 5, 0), '2024-01-02 03:04:05 +0000 UTC'],
  ])('of %d is %s', (ms, text) => {
    expect(goUtcTimestamp(ms)).toBe(text);
  });
});
