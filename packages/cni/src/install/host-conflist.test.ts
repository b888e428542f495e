import { parseNetConf } from '../net-conf.js';
import { describe, expect, it } from 'vitest';
import { hostConflist, netledgerNetConf } from './host-conflist.js';
import { parseInstallCniArgs } from './install-cni-args.js';
import { InstallError } from './install-error.js';

const options = (env: Record<string, string> = {}, argv: string[] = []) =>
  parseInstallCniArgs(argv, { NETLEDGER_IPV4_POOLS: '10.89.0.0/24', ...env }, '/');

/** The netledger-ipam entry as the plugin parses it. */
const parsed = (conflist: Record<string, unknown>) =>
  parseNetConf(JSON.stringify(netledgerNetConf(conflist)), {});

describe('hostConflist', () => {
  it('ptp by default, netledger-ipam in gateway mode with the node, store and agent socket', () => {
    const conflist = hostConflist(options({ NODENAME: 'worker-1', DATASTORE_TYPE: 'kubernetes' }));
    expect(conflist).toEqual({
      cniVersion: '1.0.0',
      name: 'netledger',
      plugins: [
        {
          type: 'ptp',
          ipMasq: true,
          ipam: {
            type: 'netledger-ipam',
            mode: 'gateway',
            ipv4_pools: ['10.89.0.0/24'],
            routes: [{ dst: '0.0.0.0/0' }],
            nodename: 'worker-1',
            datastore_type: 'kubernetes',
            agent_socket: '/run/netledger/node.sock',
          },
        },
      ],
    });
    expect(parsed(conflist).ipam).toMatchObject({
      mode: 'gateway',
      nodename: 'worker-1',
      datastore: { type: 'kubernetes' },
    });
  });

  it('bridge with its gateway, IPv6 pools with a default route, an MTU, etcd endpoints', () => {
    const conflist = hostConflist(
      options({ DATASTORE_TYPE: 'etcdv3', ETCD_ENDPOINTS: 'https://10.0.0.10:2379' }, [
        '--main-plugin',
        'bridge',
        '--bridge',
        'cni0',
        '--ipv6-pools',
        'fd00:89::/64',
        '--mtu',
        '1450',
      ]),
    );
    const [entry] = conflist['plugins'] as Record<string, unknown>[];
    expect(entry).toMatchObject({
      type: 'bridge',
      bridge: 'cni0',
      isGateway: true,
      ipMasq: true,
      mtu: 1450,
      ipam: {
        mode: 'gateway',
        assign_ipv6: 'true',
        ipv6_pools: ['fd00:89::/64'],
        routes: [{ dst: '0.0.0.0/0' }, { dst: '::/0' }],
        datastore_type: 'etcdv3',
        etcd_endpoints: 'https://10.0.0.10:2379',
      },
    });
    expect(parsed(conflist).ipam).toMatchObject({ assignIpv6: true, mode: 'gateway' });
  });

  it('a given network config: its netledger-ipam entry gets the keys it does not set', () => {
    const given = {
      cniVersion: '1.0.0',
      name: 'lan',
      plugins: [
        {
          type: 'macvlan',
          master: 'eth0',
          nodename: 'set-at-top',
          ipam: { type: 'netledger-ipam', ipv4_pools: ['lan'], agent_socket: '/run/x.sock' },
        },
        { type: 'tuning', sysctl: {} },
      ],
    };
    const conflist = hostConflist(
      options({
        CNI_NETWORK_CONFIG: JSON.stringify(given),
        NODENAME: 'worker-1',
        DATASTORE_TYPE: 'kubernetes',
      }),
    );
    expect(conflist).toEqual({
      ...given,
      plugins: [
        {
          ...given.plugins[0],
          ipam: { ...given.plugins[0]!.ipam, datastore_type: 'kubernetes' },
        },
        given.plugins[1],
      ],
    });
  });

  it.each([
    ['{', /CNI_NETWORK_CONFIG: not JSON/],
    ['{"plugins": {}}', /not a conflist/],
    ['{"plugins": [{"type": "ptp", "ipam": {"type": "host-local"}}]}', /found 0/],
    [
      '{"plugins": [{"ipam": {"type": "netledger-ipam"}}, {"ipam": {"type": "netledger-ipam"}}]}',
      /found 2/,
    ],
  ])('refuses the network config %s', (text, message) => {
    expect(() => hostConflist(options({ CNI_NETWORK_CONFIG: text }))).toThrow(InstallError);
    expect(() => hostConflist(options({ CNI_NETWORK_CONFIG: text }))).toThrow(message);
  });

  it("a bad pool or store is refused by the plugin's own parser", () => {
    expect(() => parsed(hostConflist(options({ NETLEDGER_IPV4_POOLS: 'fd00::/64' })))).toThrow(
      /fd00::\/64/,
    );
    expect(() => parsed(hostConflist(options({ DATASTORE_TYPE: 'consul' })))).toThrow(
      /unknown datastore type "consul"/,
    );
  });
});
