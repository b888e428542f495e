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

  it('--metrics-listen HOST:PORT, an IPv6 host in brackets, and Calico level names', () => {
    expect(
      parseAgentArgs(['--nodename', 'n', '--metrics-listen', '127.0.0.1:9099', '--log-level=warn']),
    ).toMatchObject({ metricsListen: { host: '127.0.0.1', port: 9099 }, logLevel: 'warning' });
    expect(parseAgentArgs(['--nodename', 'n', '--metrics-listen=[::1]:0'])).toMatchObject({
      metricsListen: { host: '::1', port: 0 },
    });
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
    [['status', '--nodename', 'a'], /unknown argument "--nodename"/],
    [['--nodename', 'a', 'extra'], /unknown argument "extra"/],
    [['--nodename', 'a', '--socket='], /--socket needs a value/],
    [['--nodename', 'a', '--metrics-listen', '9099'], /--metrics-listen 9099: expected HOST:PORT/],
    [['--nodename', 'a', '--metrics-listen', 'h:70000'], /expected HOST:PORT/],
  ])('refuses %j', (argv, message) => {
    expect(() => parseAgentArgs(argv)).toThrow(AgentUsageError);
    expect(() => parseAgentArgs(argv)).toThrow(message);
  });
});
