import { IpamError } from '@netledger/ipam-core';
import { BrokenCircuitError } from 'cockatiel';
import {
  ClientClosedError,
  EtcdError,
  EtcdPermissionDeniedError,
  GRPCDeadlineExceededError,
  GRPCFailedPreconditionError,
  GRPCInvalidArgumentError,
  GRPCOutOfRangeError,
  GRPCUnavailableError,
} from 'etcd3';
import { describe, expect, it } from 'vitest';
import { EtcdKvError } from './etcd-kv-error.js';
import { fromGrpcError } from './grpc-kv.js';
import { classifyEtcdError, toIpamError } from './map-etcd-error.js';

const ctx = { endpoints: 'http://127.0.0.1:2379', path: '/calico/ipam/v2/handle/h' };

// The gRPC transport converts etcd3's errors with fromGrpcError; the gateway's are in
// gateway-error.test.ts. Both must come out the same.
describe('classifyEtcdError and toIpamError on etcd3 errors', () => {
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
      'PermissionDenied',
      /refused the request: etcdserver: permission denied/,
    ],
    [
      new GRPCFailedPreconditionError('etcdserver: authentication is not enabled'),
      'rejected',
      'PermissionDenied',
      /refused the request: etcdserver: authentication is not enabled$/,
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
    const converted = fromGrpcError(error);
    expect(converted).toMatchObject({ message: error.message, cause: error });
    expect(classifyEtcdError(converted)).toBe(cls);
    const mapped = toIpamError(converted, ctx);
    expect(mapped).toBeInstanceOf(IpamError);
    expect(mapped).toMatchObject({ code, identifier: ctx.path, cause: converted });
    expect(mapped.message).toMatch(message);
  });

  it('says a write may have been applied when its outcome is unknown', () => {
    const mapped = toIpamError(fromGrpcError(new GRPCUnavailableError('14 UNAVAILABLE')), {
      ...ctx,
      outcomeUnknown: true,
    });
    expect(mapped.message).toContain(
      'the write to /calico/ipam/v2/handle/h may or may not have been applied',
    );
  });

  it.each([
    [new Error('timed out reading the history of /calico/x'), 'retry'],
    [new Error('etcdserver: mvcc: required revision has been compacted'), 'compacted'],
    [new Error('Cannot find module'), 'other'],
    ['a string', 'other'],
  ] as const)('judges an error no transport classified by its message: %s -> %s', (error, cls) => {
    expect(classifyEtcdError(error)).toBe(cls);
  });

  it('takes the class an adapter gave, whatever the message says', () => {
    const e = new EtcdKvError('etcdserver: leader changed', { errorClass: 'rejected' });
    expect(classifyEtcdError(e)).toBe('rejected');
  });

  it('passes an IpamError through', () => {
    const e = new IpamError('CorruptValue', 'bad');
    expect(toIpamError(e, ctx)).toBe(e);
  });
});
