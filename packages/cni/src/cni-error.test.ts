import { IpamError } from '@netledger/ipam-core';
import type { IpamErrorCode } from '@netledger/ipam-core';
import { describe, expect, it } from 'vitest';
import { CniError, toCniError } from './cni-error.js';

describe('toCniError', () => {
  it.each<[IpamErrorCode, number]>([
    ['Unavailable', 11],
    ['MaxRetries', 11],
    ['UpdateConflict', 11],
    ['BlockClaimConflict', 11],
    ['DoesNotExist', 999],
    ['AlreadyExists', 999],
    ['NoQualifiedPool', 999],
    ['BlockLimit', 999],
    ['InvalidArgument', 999],
    ['CorruptValue', 999],
  ])('IpamError %s -> %d', (code, cni) => {
    expect(toCniError(new IpamError(code, 'boom'))).toMatchObject({ code: cni, message: 'boom' });
  });

  it('passes a CniError through and wraps anything else as internal', () => {
    const e = new CniError(7, 'bad');
    expect(toCniError(e)).toBe(e);
    expect(toCniError(new TypeError('x is undefined'))).toMatchObject({
      code: 999,
      message: 'x is undefined',
    });
    expect(toCniError('text')).toMatchObject({ code: 999, message: 'text' });
  });
});
