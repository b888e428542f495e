import { describe, expect, it } from 'vitest';
import { parseNetworkBlock } from './parse-run-json.js';
import { renderNetworkArgs } from './render-network-args.js';
import { thrown } from './test-fixtures.js';

const opts = { container: 'app' };

describe('renderNetworkArgs', () => {
  it('emits nothing without PV_NETWORK_* arguments (zero impact)', () => {
    expect(renderNetworkArgs({ OTHER: 'x' }, opts)).toBeUndefined();
  });

  it('sets pool mode and defaults the hostname to the container name', () => {
    expect(renderNetworkArgs({ PV_NETWORK_POOL: 'internal' }, opts)).toEqual({
      mode: 'pool',
      pool: 'internal',
      hostname: 'app',
    });
  });

  it('puts IP and MAC on interfaces[0], which the parser reads back', () => {
    const block = renderNetworkArgs(
      {
        PV_NETWORK_POOL: 'internal',
        PV_NETWORK_HOSTNAME: 'h',
        PV_NETWORK_IP: '10.0.5.50',
        PV_NETWORK_MAC: '02:00:0a:00:05:32',
      },
      opts,
    );
    expect(block).toEqual({
      mode: 'pool',
      pool: 'internal',
      hostname: 'h',
      interfaces: [{ name: 'eth0', ipv4_address: '10.0.5.50', mac_address: '02:00:0a:00:05:32' }],
    });
    expect(parseNetworkBlock(block, opts).interfaces[0]).toMatchObject({
      name: 'eth0',
      pool: 'internal',
      mac: '02:00:0a:00:05:32',
    });
  });

  it.each([
    ['IP without a pool', { PV_NETWORK_IP: '10.0.5.50' }],
    ['a hostname without a pool', { PV_NETWORK_HOSTNAME: 'h' }],
    ['an empty pool', { PV_NETWORK_POOL: '' }],
    ['a non-string pool', { PV_NETWORK_POOL: 3 }],
  ])('refuses %s', (_why, args) => {
    expect(thrown(() => renderNetworkArgs(args, opts))).toMatchObject({
      code: 'InvalidTemplateArgs',
    });
  });
});
