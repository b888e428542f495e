import { describe, expect, it } from 'vitest';
import { IpamError } from '../errors.js';
import { formatIpamReport } from './ipam-report.js';

describe('formatIpamReport', () => {
  it.each([
    [
      'every fact',
      { handle: 'h1', cidr: '10.0.0.0/26', host: 'node-1' },
      new IpamError('Unavailable', 'etcd unavailable'),
      'Failed to decrement handle (handle h1, block 10.0.0.0/26, host node-1): etcd unavailable',
    ],
    [
      'no facts, a cause that is not an Error',
      {},
      'timeout',
      'Failed to decrement handle: timeout',
    ],
  ])('%s', (_, facts, cause, line) => {
    expect(
      formatIpamReport({
        level: 'warning',
        message: 'Failed to decrement handle',
        operation: 'decrementHandle',
        ...facts,
        cause,
      }),
    ).toBe(line);
  });
});
