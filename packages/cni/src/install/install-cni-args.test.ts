import { describe, expect, it } from 'vitest';
import { InstallUsageError } from './install-error.js';
import { parseInstallCniArgs, parseUninstallCniArgs } from './install-cni-args.js';

const POOLS = ['--ipv4-pools', '10.89.0.0/24'];

describe('parseInstallCniArgs', () => {
  it('defaults to Calico-like paths, ptp and the default agent socket', () => {
    expect(parseInstallCniArgs(POOLS, {}, '/')).toEqual({
      binDir: '/opt/cni/bin',
      confDir: '/etc/cni/net.d',
      confName: '10-netledger.conflist',
      network: 'netledger',
      mainPlugin: 'ptp',
      bridge: 'nl0',
      ipv4Pools: ['10.89.0.0/24'],
      ipv6Pools: [],
      agentSocket: '/run/netledger/node.sock',
      store: {},
    });
  });

  it('reads each setting from its environment variable, a flag winning over it', () => {
    const env = {
      CNI_BIN_DIR: '/host/opt/cni/bin',
      CNI_NET_DIR: 'net.d',
      CNI_CONF_NAME: '05-pods.conflist',
      CNI_NETWORK_NAME: 'pods',
      CNI_MAIN_PLUGIN: 'bridge',
      CNI_BRIDGE: 'cni0',
      CNI_MTU: '1450',
      NETLEDGER_IPV4_POOLS: 'default-ipv4-ippool',
      NETLEDGER_IPV6_POOLS: ' v6-a , v6-b ',
      NODENAME: 'worker-1',
      NETLEDGER_AGENT_SOCKET: '/run/nl/agent.sock',
      DATASTORE_TYPE: 'etcdv3',
      ETCD_ENDPOINTS: 'https://etcd:2379',
    };
    expect(parseInstallCniArgs([], env, '/work')).toMatchObject({
      binDir: '/host/opt/cni/bin',
      confDir: '/work/net.d',
      confName: '05-pods.conflist',
      network: 'pods',
      mainPlugin: 'bridge',
      bridge: 'cni0',
      mtu: 1450,
      ipv4Pools: ['default-ipv4-ippool'],
      ipv6Pools: ['v6-a', 'v6-b'],
      nodename: 'worker-1',
      agentSocket: '/run/nl/agent.sock',
      store: { type: 'etcdv3', etcdEndpoints: 'https://etcd:2379' },
    });
    expect(
      parseInstallCniArgs(
        ['--main-plugin', 'ptp', '--ipv4-pools=a,b', '--nodename', 'n2'],
        env,
        '/',
      ),
    ).toMatchObject({ mainPlugin: 'ptp', ipv4Pools: ['a', 'b'], nodename: 'n2' });
  });

  it('treats an empty environment variable as unset', () => {
    expect(parseInstallCniArgs(POOLS, { CNI_MAIN_PLUGIN: '', NODENAME: '' }, '/')).toMatchObject({
      mainPlugin: 'ptp',
    });
    expect(parseInstallCniArgs(POOLS, { NODENAME: '' }, '/')).not.toHaveProperty('nodename');
  });

  it('needs no pools when a whole network config is given', () => {
    expect(parseInstallCniArgs([], { CNI_NETWORK_CONFIG: '{}' }, '/')).toMatchObject({
      networkConfig: '{}',
      ipv4Pools: [],
    });
  });

  it.each([
    [[], {}, /--ipv4-pools \(or NETLEDGER_IPV4_POOLS\) is required/],
    [[...POOLS, '--main-plugin', 'macvlan'], {}, /--main-plugin macvlan: not a main plugin/],
    [POOLS, { CNI_MAIN_PLUGIN: 'calico' }, /^CNI_MAIN_PLUGIN calico: not a main plugin/],
    [
      POOLS,
      { CNI_CONF_NAME: '10-netledger.conf' },
      /CNI_CONF_NAME 10-netledger.conf: not a file name ending in .conflist/,
    ],
    [
      [...POOLS, '--conf-name', '../x.conflist'],
      {},
      /--conf-name \.\.\/x\.conflist: not a file name/,
    ],
    [[...POOLS, '--network', 'a b'], {}, /--network a b: not a network name/],
    [
      [...POOLS, '--bridge', 'a-very-long-bridge'],
      {},
      /--bridge a-very-long-bridge: not an interface name/,
    ],
    [[...POOLS, '--mtu', '9x'], {}, /--mtu 9x: not an MTU/],
    [POOLS, { CNI_MTU: '65536' }, /CNI_MTU 65536: not an MTU/],
    [
      [...POOLS, '--agent-socket', 'node.sock'],
      {},
      /--agent-socket node.sock: not an absolute path/,
    ],
    [[...POOLS, '--ipv4-pools', 'x'], {}, /--ipv4-pools is given twice/],
    [[...POOLS, '--nodename'], {}, /--nodename/],
    [[...POOLS, '--bogus', 'x'], {}, /bogus/],
    [[...POOLS, 'extra'], {}, /extra/],
  ] as const)('refuses %j %j', (argv, env, message) => {
    expect(() => parseInstallCniArgs(argv, env, '/')).toThrow(InstallUsageError);
    expect(() => parseInstallCniArgs(argv, env, '/')).toThrow(message);
  });
});

describe('parseUninstallCniArgs', () => {
  it('takes the config directory from --conf-dir, CNI_NET_DIR or the default', () => {
    expect(parseUninstallCniArgs([], {}, '/')).toEqual({ confDir: '/etc/cni/net.d' });
    expect(parseUninstallCniArgs([], { CNI_NET_DIR: '/host/net.d' }, '/')).toEqual({
      confDir: '/host/net.d',
    });
    expect(parseUninstallCniArgs(['--conf-dir', 'd'], { CNI_NET_DIR: '/x' }, '/w')).toEqual({
      confDir: '/w/d',
    });
    expect(() => parseUninstallCniArgs(['--bin-dir', '/x'], {}, '/')).toThrow(InstallUsageError);
  });
});
