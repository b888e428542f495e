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
    ['PermissionDenied', 7],
  ])('IpamError %s -> %d', (code, cni) => {
    expect(toCniError(new IpamError(code, 'boom'))).toMatchObject({ code: cni, message: 'boom' });
  });

  const errno = (code: string): NodeJS.ErrnoException =>
    Object.assign(new Error(`${code}: failed`), { code });

  // Permanent: retrying with the same settings cannot help, so the runtime must not be told to.
  it.each<[string, IpamError, 'open' | 'command', number]>([
    ['a refused password or user', new IpamError('PermissionDenied', 'refused'), 'command', 7],
    [
      'an unwritable store directory',
      new IpamError('Unavailable', 'read-only', { cause: errno('EACCES') }),
      'open',
      7,
    ],
    [
      'a read-only file system',
      new IpamError('Unavailable', 'read-only', { cause: errno('EROFS') }),
      'command',
      7,
    ],
    [
      'a path through a regular file',
      new IpamError('Unavailable', 'x', { cause: errno('ENOTDIR') }),
      'open',
      7,
    ],
    [
      'a store directory that is a regular file',
      new IpamError('Unavailable', 'x', { cause: errno('EEXIST') }),
      'open',
      7,
    ],
    [
      'a cause two levels down',
      new IpamError('Unavailable', 'x', { cause: new Error('y', { cause: errno('EPERM') }) }),
      'open',
      7,
    ],
    ['a store path that is a directory', new IpamError('InvalidArgument', 'dir'), 'open', 7],
    ['a request the library refuses', new IpamError('InvalidArgument', 'bad'), 'command', 999],
    [
      'a full disk (may pass)',
      new IpamError('Unavailable', 'x', { cause: errno('ENOSPC') }),
      'command',
      11,
    ],
    ['a held lock', new IpamError('Unavailable', 'lock held by pid 7'), 'open', 11],
    [
      'an unreachable etcd',
      new IpamError('Unavailable', 'unreachable', { cause: errno('ECONNREFUSED') }),
      'open',
      11,
    ],
  ])('%s (%s) -> %d', (_, e, phase, cni) => {
    expect(toCniError(e, phase)).toMatchObject({ code: cni, message: e.message });
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
