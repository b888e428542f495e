import { DatastoreConfigError } from '@netledger/datastore-config';
import type { DatastoreConfigErrorCode } from '@netledger/datastore-config';
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

  it.each<[DatastoreConfigErrorCode, number, string]>([
    ['WrongType', 6, 'failed to load netconf: boom'],
    ['InvalidValue', 7, 'boom'],
    ['Unsupported', 2, 'boom'],
    ['NotAvailable', 7, 'boom'],
    ['NoDatastore', 7, 'boom'],
  ])('DatastoreConfigError %s -> %d', (code, cni, message) => {
    expect(toCniError(new DatastoreConfigError(code, 'boom'))).toMatchObject({
      code: cni,
      message,
    });
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
