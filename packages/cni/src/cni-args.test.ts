import { describe, expect, it } from 'vitest';
import { parseCniArgs } from './cni-args.js';

describe('parseCniArgs', () => {
  it.each([
    ['', {}],
    [undefined, {}],
    ['IgnoreUnknown=1', {}],
    ['K8S_POD_NAMESPACE=ns1;K8S_POD_NAME=web-0', { k8s: { namespace: 'ns1', pod: 'web-0' } }],
    ['K8S_POD_NAMESPACE=ns1', {}],
    ['K8S_POD_NAME=web-0;K8S_POD_NAMESPACE=', {}],
    [
      'IgnoreUnknown=1;K8S_POD_NAMESPACE=ns;K8S_POD_NAME=p;K8S_POD_INFRA_CONTAINER_ID=abc;K8S_POD_UID=u;FOO=bar',
      { k8s: { namespace: 'ns', pod: 'p' } },
    ],
    ['IgnoreUnknown=true;FOO=bar', {}],
    ['IgnoreUnknown=True;FOO=bar', {}],
    ['IP=10.1.0.9', { ip: '10.1.0.9' }],
    ['IgnoreUnknown=1;IP=fd00:0:0::9', { ip: 'fd00::9' }],
    ['IP=', {}],
    [';;IgnoreUnknown=1;;', {}],
  ])('%j', (text, expected) => {
    expect(parseCniArgs(text)).toEqual(expected);
  });

  it.each([
    ['FOO=bar', 'ARGS: unknown args "FOO=bar"'],
    ['IgnoreUnknown=0;FOO=bar', 'ARGS: unknown args "FOO=bar"'],
    ['IgnoreUnknown=yes', 'boolean unmarshal error'],
    ['IP', 'ARGS: invalid pair "IP"'],
    ['IP=1=2', 'ARGS: invalid pair "IP=1=2"'],
    ['IP=10.1.0.300', 'invalid IP address'],
    ['IP=10.1.0.0/24', 'invalid IP address'],
  ])('refuses %j with InvalidEnvironmentVariables', (text, msg) => {
    expect(() => parseCniArgs(text)).toThrow(
      expect.objectContaining({ code: 4, message: expect.stringContaining(msg) }),
    );
  });
});
