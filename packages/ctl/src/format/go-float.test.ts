import { describe, expect, it } from 'vitest';
import { formatGoF, formatGoG } from './go-float.js';

describe('formatGoG (%.5g)', () => {
  it.each([
    [0, '0'],
    [1, '1'],
    [64, '64'],
    [100, '100'],
    [65531, '65531'],
    [65536, '65536'],
    [99999, '99999'],
    [100000, '1e+05'],
    [123456, '1.2346e+05'],
    [131072, '1.3107e+05'],
    [1048576, '1.0486e+06'],
    [16777216, '1.6777e+07'],
    [16777152, '1.6777e+07'],
    [1234250, '1.2342e+06'], // exact tie: half to even keeps 2
    [1234350, '1.2344e+06'], // exact tie: half to even rounds 3 up
    [9999950, '1e+07'],
    [2 ** 63, '9.2234e+18'],
    [2 ** 64, '1.8447e+19'],
    [2 ** 80, '1.2089e+24'],
    [2 ** 128, '3.4028e+38'],
    [12.5, '12.5'],
    [0.0001, '0.0001'],
    [0.00001, '1e-05'],
    [-64, '-64'],
    [Number.NaN, 'NaN'],
    [Infinity, '+Inf'],
  ])('%s -> %s', (x, text) => {
    expect(formatGoG(x, 5)).toBe(text);
  });

  it('JS toPrecision differs where Go is reproduced', () => {
    expect((131072).toPrecision(5)).toBe('1.3107e+5');
    expect((1234250).toPrecision(5)).toBe('1.2343e+6');
  });

  it('honours other precisions', () => {
    expect(formatGoG(3.14159, 3)).toBe('3.14');
    expect(formatGoG(1234567, 6)).toBe('1.23457e+06');
    expect(formatGoG(5, 0)).toBe('5');
  });
});

describe('formatGoF (%.f)', () => {
  it.each([
    [62.5, '62'],
    [37.5, '38'],
    [0.5, '0'],
    [1.5, '2'],
    [2.5, '2'],
    [99.99, '100'],
    [100, '100'],
    [(100 * 5) / 65536, '0'],
    [7.8125, '8'],
    [92.1875, '92'],
    [0, '0'],
    [Number.NaN, 'NaN'],
  ])('%s -> %s', (x, text) => {
    expect(formatGoF(x)).toBe(text);
  });

  it('differs from toFixed on ties', () => {
    expect((62.5).toFixed(0)).toBe('63');
    expect(formatGoF(62.5)).toBe('62');
  });

  it('keeps fraction digits when asked', () => {
    expect(formatGoF(2.675, 2)).toBe('2.67'); // the double is just below 2.675
    expect(formatGoF(0.125, 2)).toBe('0.12');
    expect(formatGoF(0.375, 2)).toBe('0.38');
  });
});
