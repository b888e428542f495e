import { IpamError } from '@netledger/ipam-core';
import { BrokenCircuitError } from 'cockatiel';
import {
  ClientClosedError,
  EtcdError,
  EtcdPermissionDeniedError,
  GRPCDeadlineExceededError,
  GRPCInvalidArgumentError,
  GRPCOutOfRangeError,
  GRPCUnavailableError,
} from 'etcd3';
import { describe, expect, it } from 'vitest';
import { classifyEtcdError, toIpamError } from './map-etcd-error.js';

const ctx = { endpoints: 'http://127.0.0.1:2379', path: '/calico/ipam/v2/handle/h' };

describe('classifyEtcdError and toIpamError', () => {
  it.each([
    [
      new GRPCUnavailableError('14 UNAVAILABLE: No connection established'),
      'retry',
      'Unavailable',
      /^etcd at http:\/\/127\.0\.0\.1:2379 unreachable: /,
    ],
    [
      new GRPCDeadlineExceededError('4 DEADLINE_EXCEEDED: Deadline exceeded'),
      'retry',
      'Unavailable',
      /unreachable/,
    ],
    [
      new EtcdError('etcdserver: leader changed'),
      'retry',
      'Unavailable',
      /unreachable: etcdserver: leader changed/,
    ],
    [new EtcdError('etcdserver: request timed out'), 'retry', 'Unavailable', /unreachable/],
    [new BrokenCircuitError(), 'retry', 'Unavailable', /unreachable/],
    [
      new GRPCOutOfRangeError('etcdserver: mvcc: required revision has been compacted'),
      'compacted',
      'WatchExpired',
      /compacted/,
    ],
    [
      new EtcdPermissionDeniedError('etcdserver: permission denied'),
      'rejected',
      'Unavailable',
      /refused the request: etcdserver: permission denied/,
    ],
    [
      new GRPCInvalidArgumentError('etcdserver: request is too large'),
      'invalid',
      'InvalidArgument',
      /rejected the request/,
    ],
    [new ClientClosedError('KV'), 'closed', 'Unavailable', /^datastore is closed$/],
    [new Error('something else'), 'other', 'Unavailable', /failed: something else/],
  ] as const)('%s -> %s / %s', (error, cls, code, message) => {
    expect(classifyEtcdError(error)).toBe(cls);
    const mapped = toIpamError(error, ctx);
    expect(mapped).toBeInstanceOf(IpamError);
    expect(mapped).toMatchObject({ code, identifier: ctx.path, cause: error });
    expect(mapped.message).toMatch(message);
  });

  it('says a write may have been applied when its outcome is unknown', () => {
    const mapped = toIpamError(new GRPCUnavailableError('14 UNAVAILABLE'), {
      ...ctx,
      outcomeUnknown: true,
    });
    expect(mapped.message).toContain(
      'the write to /calico/ipam/v2/handle/h may or may not have been applied',
    );
  });

  it('passes an IpamError through', () => {
    const e = new IpamError('CorruptValue', 'bad');
    expect(toIpamError(e, ctx)).toBe(e);
  });
});
