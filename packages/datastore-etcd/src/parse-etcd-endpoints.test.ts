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
  ])('parses %j', (text, expected) => {
    expect(parseEtcdEndpoints(text)).toEqual(expected);
  });

  it.each([
    ['', 'none given'],
    [' , ', 'none given'],
    ['127.0.0.1:2379', 'is not an http(s)://host:port URL'],
    ['unix:///run/etcd.sock', 'is not an http(s)://host:port URL'],
    ['http://10.0.0.1:2379/v3', 'is not an http(s)://host:port URL'],
    ['not a url', 'is not an http(s)://host:port URL'],
    ['http://a:2379,https://b:2379', 'mix http:// and https://'],
  ])('rejects %j with InvalidArgument', (text, message) => {
    expect(() => parseEtcdEndpoints(text)).toThrow(message);
    try {
      parseEtcdEndpoints(text);
    } catch (e) {
      expect(e).toMatchObject({ code: 'InvalidArgument' });
    }
  });
});
