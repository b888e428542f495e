import { describe, expect, it } from 'vitest';
import { parseNetConf } from '../net-conf.js';
import { exampleConflist } from './example-conflist.js';
import { pluginSourceDir } from './plugin-files.js';

describe('pluginSourceDir', () => {
  it.each<[string[], string | undefined, string | undefined]>([
    [
      ['--no-sparkplug', '--snapshot-blob', '/opt/cni/bin/netledger-ipam.d/netledger-ipam.blob'],
      undefined,
      '/opt/cni/bin/netledger-ipam.d',
    ],
    [['--snapshot-blob=/x/dist/netledger-ipam.blob'], '/y', '/x/dist'],
    [[], '/repo/apps/cni-plugin/dist', '/repo/apps/cni-plugin/dist'],
    [['--max-old-space-size=100'], undefined, undefined],
  ])('execArgv %j, module %s -> %s', (execArgv, selfDir, dir) => {
    expect(pluginSourceDir({ execArgv, ...(selfDir && { selfDir }) })).toBe(dir);
  });
});

describe('exampleConflist', () => {
  it('is a bridge network with netledger-ipam in gateway mode, which the plugin accepts', () => {
    const c = exampleConflist({
      network: 'pods',
      bridge: 'nl0',
      pool: '10.5.0.0/24',
      datastorePath: '/var/lib/netledger/ds.json',
    });
    expect(c).toMatchObject({
      cniVersion: '1.0.0',
      name: 'pods',
      plugins: [
        {
          type: 'bridge',
          bridge: 'nl0',
          isGateway: true,
          ipam: {
            type: 'netledger-ipam',
            mode: 'gateway',
            ipv4_pools: ['10.5.0.0/24'],
            routes: [{ dst: '0.0.0.0/0' }],
            datastore_path: '/var/lib/netledger/ds.json',
          },
        },
      ],
    });
    const plugin = (c['plugins'] as Record<string, unknown>[])[0]!;
    const conf = parseNetConf(JSON.stringify({ cniVersion: '1.0.0', name: 'pods', ...plugin }), {});
    expect(conf.ipam).toMatchObject({ mode: 'gateway', ipv4Pools: ['10.5.0.0/24'] });
  });
});
