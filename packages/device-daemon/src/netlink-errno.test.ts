import { describe, expect, it } from 'vitest';
import { describeErrno, ERRNO } from './netlink-errno.js';

describe('describeErrno', () => {
  it.each([
    [ERRNO.EPERM, 'operation not permitted (EPERM)'],
    [ERRNO.EACCES, 'permission denied (EACCES)'],
    [ERRNO.EEXIST, 'file already exists (EEXIST)'],
    [ERRNO.ENODEV, 'no such device (ENODEV)'],
    [ERRNO.EAFNOSUPPORT, 'address family not supported (EAFNOSUPPORT)'],
    [ERRNO.EADDRNOTAVAIL, 'address not available (EADDRNOTAVAIL)'],
  ])('names errno %i: %s', (errno, text) => {
    expect(describeErrno(errno)).toBe(text);
  });

  it.each([0, -1, 4095, 3008])('leaves %i, not a kernel errno, a number', (errno) => {
    // 4095 and 3008 are in Node's table as libuv's EOF and ENOTFOUND: not what the kernel meant.
    expect(describeErrno(errno)).toBe(`errno ${errno}`);
  });
});
