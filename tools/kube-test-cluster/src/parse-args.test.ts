import { describe, expect, it } from 'vitest';
import { parseArgs } from './parse-args.js';

describe('parseArgs', () => {
  it.each([
    [['up', '--dir', '/tmp/c'], { kind: 'up', dir: '/tmp/c', cni: 'netledger' }],
    [
      ['up', '--dir=/tmp/c/', '--cni', 'host-local'],
      { kind: 'up', dir: '/tmp/c', cni: 'host-local' },
    ],
    [['up', '--cni=netledger', '--dir', 'c'], { kind: 'up', dir: '/work/c', cni: 'netledger' }],
    [['down', '--dir', '../c'], { kind: 'down', dir: '/c' }],
    [['--help'], { kind: 'help' }],
    [['up', '--help'], { kind: 'help' }],
  ])('%j', (argv, expected) => {
    expect(parseArgs(argv, '/work')).toEqual(expected);
  });

  it.each([
    [[], /a command is required/],
    [['start', '--dir', 'x'], /unknown command: start/],
    [['up'], /up: --dir is required/],
    [['up', '--dir'], /--dir needs a value/],
    [
      ['up', '--dir', 'x', '--cni', 'calico'],
      /--cni calico: expected one of netledger, host-local/,
    ],
    [['down', '--dir', 'x', '--cni', 'host-local'], /down: unknown argument: --cni/],
    [['up', '--dir', '/'], /refusing the root directory/],
  ])('refuses %j', (argv, message) => {
    expect(() => parseArgs(argv, '/work')).toThrow(
      expect.objectContaining({ code: 'USAGE', message: expect.stringMatching(message) }),
    );
  });
});
