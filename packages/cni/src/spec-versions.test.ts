import { describe, expect, it } from 'vitest';
import { compareVersions, isSupportedVersion, versionInfo } from './spec-versions.js';

describe('compareVersions', () => {
  it.each([
    ['0.3.0', '0.3.1', -1],
    ['0.4.0', '0.3.1', 1],
    ['1.0.0', '1.0.0', 0],
    ['1.1.0', '0.4.0', 1],
    ['0.10.0', '0.9.0', 1],
  ])('%s vs %s', (a, b, sign) => {
    expect(Math.sign(compareVersions(a, b))).toBe(sign);
  });

  it.each(['1.0', 'x.y.z', '', '1.0.0-rc1'])('refuses %j with DecodingFailure', (v) => {
    expect(() => compareVersions(v, '1.0.0')).toThrow(expect.objectContaining({ code: 6 }));
  });
});

describe('supported versions', () => {
  it.each([
    ['0.1.0', false],
    ['0.2.0', false],
    ['0.3.0', true],
    ['0.3.1', true],
    ['0.4.0', true],
    ['1.0.0', true],
    ['1.1.0', true],
    ['1.2.0', false],
  ])('%s supported: %s', (v, ok) => {
    expect(isSupportedVersion(v)).toBe(ok);
  });

  it('VERSION reports 1.1.0 and the list', () => {
    expect(versionInfo()).toEqual({
      cniVersion: '1.1.0',
      supportedVersions: ['0.3.0', '0.3.1', '0.4.0', '1.0.0', '1.1.0'],
    });
  });
});
