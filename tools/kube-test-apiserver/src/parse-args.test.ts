import { describe, expect, it } from 'vitest';
import { isLoopback, parseArgs, parseListen } from './parse-args.js';

describe('parseListen', () => {
  it.each([
    ['127.0.0.1:6443', { host: '127.0.0.1', port: 6443 }],
    ['127.0.0.2:0', { host: '127.0.0.2', port: 0 }],
    ['[::1]:6443', { host: '::1', port: 6443 }],
  ])('%s', (text, expected) => {
    expect(parseListen(text)).toEqual(expected);
  });

  it.each([
    ['10.0.0.1:6443', /not a loopback IP/],
    ['0.0.0.0:6443', /not a loopback IP/],
    ['localhost:6443', /not a loopback IP/],
    ['127.0.0.1', /expected HOST:PORT/],
    ['127.0.0.1:70000', /expected HOST:PORT/],
    ['::1:6443', /expected HOST:PORT/],
  ])('refuses %s', (text, message) => {
    expect(() => parseListen(text)).toThrow(
      expect.objectContaining({ code: 'USAGE', message: expect.stringMatching(message) }),
    );
  });
});

describe('isLoopback', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.255.0.9', true],
    ['::1', true],
    ['0:0:0:0:0:0:0:1', true],
    ['::2', false],
    ['128.0.0.1', false],
    ['::ffff:127.0.0.1', false],
  ])('%s: %s', (host, expected) => {
    expect(isLoopback(host)).toBe(expected);
  });
});

describe('parseArgs', () => {
  it('takes the pinned interface and defaults the rest', () => {
    expect(parseArgs(['--listen', '127.0.0.1:6443', '--kubeconfig-out', '/tmp/k'])).toEqual({
      kind: 'serve',
      listen: { host: '127.0.0.1', port: 6443 },
      kubeconfigOut: '/tmp/k',
      tokensOut: '/tmp/k.tokens.json',
      noBuild: false,
      exitOnStdinClose: false,
      startTimeoutMs: 60_000,
      node: undefined,
      withControllerManager: false,
    });
  });

  it('takes --flag=value and every option', () => {
    expect(
      parseArgs([
        '--listen=[::1]:0',
        '--kubeconfig-out=k',
        '--tokens-out=t.json',
        '--no-build',
        '--exit-on-stdin-close',
        '--start-timeout=2.5',
        '--node=kube-test-node',
        '--with-controller-manager',
      ]),
    ).toMatchObject({
      listen: { host: '::1', port: 0 },
      tokensOut: 't.json',
      noBuild: true,
      exitOnStdinClose: true,
      startTimeoutMs: 2500,
      node: 'kube-test-node',
      withControllerManager: true,
    });
  });

  it.each([
    [['--build'], { kind: 'build' }],
    [['--help'], { kind: 'help' }],
    [['--listen', 'x', '--help'], { kind: 'help' }],
  ])('%j', (argv, expected) => {
    expect(parseArgs(argv)).toEqual(expected);
  });

  it.each([
    [['--kubeconfig-out', 'k'], /--listen is required/],
    [['--listen', '127.0.0.1:1'], /--kubeconfig-out is required/],
    [['--listen'], /--listen needs a value/],
    [['--listen', '127.0.0.1:1', '--kubeconfig-out', 'k', '--verbose'], /unknown argument/],
    [['--build', '--no-build'], /--build takes no other option/],
    [['--listen', '127.0.0.1:1', '--kubeconfig-out', 'k', '--start-timeout', '0'], /positive/],
    [['--listen', '127.0.0.1:1', '--kubeconfig-out', 'k', '--node', 'Node_1'], /not a node name/],
    [['--listen', '127.0.0.1:1', '--kubeconfig-out', 'k', '--node', 'a..b'], /not a node name/],
  ])('refuses %j', (argv, message) => {
    expect(() => parseArgs(argv)).toThrow(
      expect.objectContaining({ code: 'USAGE', message: expect.stringMatching(message) }),
    );
  });
});
