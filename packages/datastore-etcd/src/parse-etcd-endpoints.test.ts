import { describe, expect, it } from 'vitest';
import { parseEtcdEndpoints } from './parse-etcd-endpoints.js';

describe('parseEtcdEndpoints', () => {
  it.each([
    ['http://127.0.0.1:2379', ['http://127.0.0.1:2379']],
    [
      ' http://10.0.0.1:2379 , http://10.0.0.2:2379,',
      ['http://10.0.0.1:2379', 'http://10.0.0.2:2379'],
    ],
    ['https://etcd.example:2379/', ['https://etcd.example:2379']],
    ['http://[fd00::1]:2379', ['http://[fd00::1]:2379']],
    // Without a scheme, and without knowing whether TLS is configured, endpoints stay as written.
    ['127.0.0.1:2379', ['127.0.0.1:2379']],
    ['[::1]:2379', ['[::1]:2379']],
    ['etcd-0.etcd.kube-system.svc:2379', ['etcd-0.etcd.kube-system.svc:2379']],
    ['localhost:2379,http://10.0.0.2:2379', ['localhost:2379', 'http://10.0.0.2:2379']],
  ])('parses %j', (text, expected) => {
    expect(parseEtcdEndpoints(text)).toEqual(expected);
  });

  it.each([
    [false, '127.0.0.1:2379', ['http://127.0.0.1:2379']],
    [true, '127.0.0.1:2379', ['https://127.0.0.1:2379']],
    [false, '[::1]:2379,[fd00::2]:2379', ['http://[::1]:2379', 'http://[fd00::2]:2379']],
    [true, 'etcd.example:2379', ['https://etcd.example:2379']],
    [true, 'etcd.example:2379,https://b:2379', ['https://etcd.example:2379', 'https://b:2379']],
    // An explicit scheme wins over the TLS material, as in clientv3.
    [true, 'http://10.0.0.1:2379', ['http://10.0.0.1:2379']],
  ])('with tls %s gives %j the scheme clientv3 would', (tls, text, expected) => {
    expect(parseEtcdEndpoints(text, { tls })).toEqual(expected);
  });

  it.each([
    ['', {}, 'none given'],
    [' , ', {}, 'none given'],
    ['unix:///run/etcd.sock', {}, 'is not an http(s)://host:port URL'],
    ['http://10.0.0.1:2379/v3', {}, 'is not an http(s)://host:port URL'],
    ['http://user:pw@10.0.0.1:2379', {}, 'is not an http(s)://host:port URL'],
    ['not a url', {}, 'is not host:port, [IPv6]:port or http(s)://host:port'],
    ['127.0.0.1', {}, 'has no port'],
    ['127.0.0.1:', {}, 'is not host:port, [IPv6]:port or http(s)://host:port'],
    ['127.0.0.1:2379/v3', {}, 'is not host:port, [IPv6]:port or http(s)://host:port'],
    ['127.0.0.1:99999', {}, 'has port 99999, not 1-65535'],
    ['127.0.0.1:0', {}, 'has port 0, not 1-65535'],
    ['::1:2379', {}, 'put an IPv6 address in brackets'],
    ['fd00::1:2379', {}, 'put an IPv6 address in brackets'],
    ['[::g]:2379', {}, 'is not host:port, [IPv6]:port or http(s)://host:port'],
    ['bad host:2379', {}, 'is not host:port, [IPv6]:port or http(s)://host:port'],
    ['user@10.0.0.1:2379', {}, 'is not host:port, [IPv6]:port or http(s)://host:port'],
    ['http://a:2379,https://b:2379', {}, 'mix http:// and https://'],
    ['a:2379,https://b:2379', { tls: false }, 'an endpoint without a scheme is http without TLS'],
    ['a:2379,http://b:2379', { tls: true }, 'an endpoint without a scheme is https with TLS'],
  ])('rejects %j (%j) with InvalidArgument', (text, options, message) => {
    let error: unknown;
    try {
      parseEtcdEndpoints(text, options);
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ code: 'InvalidArgument' });
    expect((error as Error).message).toContain(message);
  });

  it('names the bad entry, not the whole list', () => {
    expect(() => parseEtcdEndpoints('127.0.0.1:2379,::1:2379')).toThrow(
      'etcd endpoint "::1:2379" is not',
    );
  });
});
