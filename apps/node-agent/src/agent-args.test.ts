import { describe, expect, it } from 'vitest';
import { AgentUsageError, parseAgentArgs } from './agent-args.js';

describe('parseAgentArgs', () => {
  it('--nodename NAME alone: the default socket, info logs', () => {
    expect(parseAgentArgs(['--nodename', 'node-1'])).toEqual({
      verb: 'run',
      nodename: 'node-1',
      socket: '/run/netledger/node.sock',
      logLevel: 'info',
    });
  });

  it('--socket PATH and --flag=VALUE forms', () => {
    expect(
      parseAgentArgs(['--nodename=n1.example', '--socket=/tmp/a.sock', '--log-level', 'DEBUG']),
    ).toEqual({ verb: 'run', nodename: 'n1.example', socket: '/tmp/a.sock', logLevel: 'debug' });
  });

  it('status [--socket PATH]', () => {
    expect(parseAgentArgs(['status'])).toEqual({
      verb: 'status',
      socket: '/run/netledger/node.sock',
    });
    expect(parseAgentArgs(['status', '--socket', '/x.sock'])).toEqual({
      verb: 'status',
      socket: '/x.sock',
    });
  });

  it.each<[string[], RegExp]>([
    [[], /--nodename is required/],
    [['--socket', '/x.sock'], /--nodename is required/],
    [['--nodename'], /--nodename needs a value/],
    [['--nodename', 'a', '--nodename', 'b'], /given twice/],
    [['--nodename', 'a', '--socket', 'relative.sock'], /not an absolute path/],
    [['--nodename', 'bad_name!'], /not a node name/],
    [['--nodename', 'a', '--log-level', 'loud'], /--log-level loud/],
    [['--nodename', 'a', '--datastore', 'x'], /unknown argument "--datastore"/],
    [['status', '--nodename', 'a'], /unknown argument/],
  ])('refuses %j', (argv, message) => {
    expect(() => parseAgentArgs(argv)).toThrow(AgentUsageError);
    expect(() => parseAgentArgs(argv)).toThrow(message);
  });
});
