import { IpamError } from '@netledger/ipam-core';
import { describe, expect, it } from 'vitest';
import {
  GatewayUnreachableError,
  gatewayStatusError,
  isInvalidAuthToken,
  watchCanceledError,
} from './gateway-error.js';
import { classifyEtcdError, toIpamError } from './map-etcd-error.js';

const endpoint = 'http://127.0.0.1:2379';
const ctx = { endpoints: endpoint, path: '/calico/ipam/v2/handle/h' };
const body = (message: string, code: number): string =>
  JSON.stringify({ error: message, message, code });

// Bodies as etcd 3.4.23's gateway sends them; classes and codes as the gRPC transport gives for
// the same answer (map-etcd-error.test.ts).
describe('gatewayStatusError', () => {
  it.each([
    [
      503,
      body('etcdserver: leader changed', 14),
      'retry',
      'Unavailable',
      /unreachable: etcdserver: leader changed$/,
    ],
    [503, body('etcdserver: no leader', 14), 'retry', 'Unavailable', /unreachable/],
    [503, body('etcdserver: request timed out', 14), 'retry', 'Unavailable', /unreachable/],
    [504, body('context deadline exceeded', 4), 'retry', 'Unavailable', /unreachable/],
    [500, body('transport is closing', 2), 'retry', 'Unavailable', /unreachable/],
    [
      400,
      body('etcdserver: mvcc: required revision has been compacted', 11),
      'compacted',
      'WatchExpired',
      /compacted/,
    ],
    [
      400,
      body('etcdserver: mvcc: required revision is a future revision', 11),
      'other',
      'Unavailable',
      /failed: .*future revision/,
    ],
    [
      400,
      body('etcdserver: authentication failed, invalid user ID or password', 3),
      'rejected',
      'PermissionDenied',
      /refused the request: etcdserver: authentication failed/,
    ],
    [
      403,
      body('etcdserver: permission denied', 7),
      'rejected',
      'PermissionDenied',
      /refused the request/,
    ],
    [
      401,
      body('etcdserver: invalid auth token', 16),
      'rejected',
      'PermissionDenied',
      /refused the request/,
    ],
    [
      412,
      body('etcdserver: authentication is not enabled', 9),
      'rejected',
      'PermissionDenied',
      /refused the request: etcdserver: authentication is not enabled$/,
    ],
    [
      400,
      body('etcdserver: request is too large', 3),
      'invalid',
      'InvalidArgument',
      /rejected the request: etcdserver: request is too large/,
    ],
    [
      400,
      body('etcdserver: key is not provided', 3),
      'invalid',
      'InvalidArgument',
      /rejected the request/,
    ],
    [
      503,
      '<html>Service Unavailable</html>',
      'retry',
      'Unavailable',
      /unreachable: http:\/\/127\.0\.0\.1:2379 answered HTTP 503: <html>/,
    ],
    [404, '404 page not found', 'other', 'Unavailable', /failed: .*answered HTTP 404/],
    [400, '{"code":3}', 'other', 'Unavailable', /answered HTTP 400/],
  ] as const)('HTTP %i %s -> %s / %s', (status, text, cls, code, message) => {
    const e = gatewayStatusError(endpoint, status, text);
    expect(classifyEtcdError(e)).toBe(cls);
    const mapped = toIpamError(e, ctx);
    expect(mapped).toBeInstanceOf(IpamError);
    expect(mapped).toMatchObject({ code, identifier: ctx.path, cause: e });
    expect(mapped.message).toMatch(message);
  });

  it('refuses a client certificate with a CommonName for good, saying what to do instead', () => {
    const e = gatewayStatusError(
      endpoint,
      400,
      'CommonName of client sending a request against gateway will be ignored and not used as expected\n',
    );
    expect(classifyEtcdError(e)).toBe('rejected');
    expect(e.message).toContain(
      'use the grpc transport, or a client certificate without a CommonName',
    );
  });

  it('keeps the gRPC code etcd answered with', () => {
    expect(gatewayStatusError(endpoint, 503, body('etcdserver: no leader', 14))).toMatchObject({
      grpcCode: 14,
      message: 'etcdserver: no leader',
    });
  });

  it('tells an invalid token (authenticate again) from other refusals', () => {
    expect(
      isInvalidAuthToken(
        gatewayStatusError(endpoint, 401, body('etcdserver: invalid auth token', 16)),
      ),
    ).toBe(true);
    expect(
      isInvalidAuthToken(
        gatewayStatusError(endpoint, 403, body('etcdserver: permission denied', 7)),
      ),
    ).toBe(false);
    expect(isInvalidAuthToken(new Error('etcdserver: invalid auth token'))).toBe(false);
  });
});

describe('GatewayUnreachableError', () => {
  it.each([
    ['connect ECONNREFUSED 127.0.0.1:2379', false],
    ['socket hang up', true],
    ['read ECONNRESET', true],
    ['request timed out after 1000 ms', true],
  ])('%s: retried, names the endpoint, and says whether the request went out', (text, sent) => {
    const e = new GatewayUnreachableError(endpoint, new Error(text), sent);
    expect(classifyEtcdError(e)).toBe('retry');
    expect(e).toMatchObject({ requestSent: sent, message: `${endpoint}: ${text}` });
    const mapped = toIpamError(e, { ...ctx, outcomeUnknown: true });
    expect(mapped.message).toBe(
      `etcd at ${endpoint} unreachable: ${endpoint}: ${text}; the write to ${ctx.path} may or may not have been applied`,
    );
  });
});

describe('watchCanceledError', () => {
  it.each([
    ['rpc error: code = PermissionDenied desc = etcdserver: permission denied', '0', 'rejected', 7],
    [
      'rpc error: code = Unauthenticated desc = etcdserver: invalid auth token',
      '0',
      'rejected',
      16,
    ],
    ['rpc error: code = Unavailable desc = etcdserver: no leader', '0', 'retry', 14],
    ['', '0', 'other', undefined],
    // A compacted start revision: the watch probes for itself, and a write resolving its outcome
    // must not turn into WatchExpired.
    ['', '7', 'other', undefined],
  ] as const)('%j (compact revision %s) -> %s', (reason, compact, cls, grpcCode) => {
    const e = watchCanceledError(reason, compact);
    expect(classifyEtcdError(e)).toBe(cls);
    expect(e.grpcCode).toBe(grpcCode);
    if (compact !== '0') expect(e.message).toContain(`revision ${compact} is compacted`);
    else expect(e.message).toContain(reason);
  });
});
