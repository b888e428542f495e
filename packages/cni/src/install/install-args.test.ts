import { describe, expect, it } from 'vitest';
import { InstallUsageError, parseInstallArgs } from './install-args.js';

describe('parseInstallArgs', () => {
  it('needs --bin-dir only, and makes paths absolute', () => {
    expect(parseInstallArgs(['--bin-dir', 'cni/bin'], '/work')).toEqual({
      binDir: '/work/cni/bin',
      network: 'netledger',
      bridge: 'nl0',
      pool: '10.89.0.0/24',
      confFile: 'netledger.conflist',
      agentClient: 'perl',
    });
  });

  it('reads every option, as --flag VALUE or --flag=VALUE', () => {
    expect(
      parseInstallArgs(
        [
          '--bin-dir=/opt/cni/bin',
          '--conf-dir',
          'net.d',
          '--network=pods',
          '--bridge',
          'br-pods',
          '--pool=10.5.0.0/24',
          '--conf-file',
          '10-pods.conflist',
          '--datastore-path',
          '/var/lib/x.json',
          '--lock-file=run/l',
          '--agent-socket',
          'run/node.sock',
          '--agent-client=node',
        ],
        '/etc/cni',
      ),
    ).toEqual({
      binDir: '/opt/cni/bin',
      confDir: '/etc/cni/net.d',
      network: 'pods',
      bridge: 'br-pods',
      pool: '10.5.0.0/24',
      confFile: '10-pods.conflist',
      datastorePath: '/var/lib/x.json',
      lockFile: '/etc/cni/run/l',
      agentSocket: '/etc/cni/run/node.sock',
      agentClient: 'node',
    });
  });

  it.each<[string[], string]>([
    [[], '--bin-dir is required'],
    [['--bin-dir'], '--bin-dir needs a value'],
    [['--bin-dir='], '--bin-dir needs a value'],
    [['--bin-dir', 'a', '--bin-dir', 'b'], '--bin-dir is given twice'],
    [['--bin-dir', 'a', '--force'], 'unknown argument "--force"'],
    [['--bin-dir', 'a', 'extra'], 'unknown argument "extra"'],
    [['--bin-dir', 'a', '--network', 'a/b'], 'not a network name'],
    [['--bin-dir', 'a', '--bridge', 'a-very-long-bridge-name'], 'not an interface name'],
    [['--bin-dir', 'a', '--conf-file', '../x'], 'not a file name'],
    [['--bin-dir', 'a', '--agent-client', 'curl'], '--agent-client curl: perl or node'],
    [['--bin-dir', 'a', '--agent-socket', '/run/a b.sock'], 'not a plain path'],
  ])('refuses %j: %s', (argv, msg) => {
    expect(() => parseInstallArgs(argv, '/')).toThrow(InstallUsageError);
    expect(() => parseInstallArgs(argv, '/')).toThrow(msg);
  });
});
