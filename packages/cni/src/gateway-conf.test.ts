import { formatCidr, formatIp } from '@netledger/accounting';
import { describe, expect, it } from 'vitest';
import { CniError } from './cni-error.js';
import { parseGatewayConf } from './gateway-conf.js';
import { parseNetConf } from './net-conf.js';

const errorOf = (f: () => unknown): CniError => {
  try {
    f();
  } catch (e) {
    if (e instanceof CniError) return e;
    throw e;
  }
  throw new Error('no error');
};

describe('parseGatewayConf', () => {
  it('defaults to calico mode, with no gateway keys', () => {
    expect(parseGatewayConf({})).toEqual({ mode: 'calico' });
    expect(parseGatewayConf({ mode: 'calico' })).toEqual({ mode: 'calico' });
  });

  it('reads the segment, gateway and routes of each family in gateway mode', () => {
    const { mode, gateway } = parseGatewayConf({
      mode: 'gateway',
      ipv4_subnet: '10.9.0.0/24',
      ipv4_gateway: '10.9.0.254',
      ipv6_subnet: 'fd00:9::/64',
      routes: [{ dst: '0.0.0.0/0' }, { dst: '10.8.0.5/16', gw: '10.9.0.1' }],
    });
    expect(mode).toBe('gateway');
    expect(formatCidr(gateway!.v4.subnet!)).toBe('10.9.0.0/24');
    expect(formatIp(gateway!.v4.gateway!)).toBe('10.9.0.254');
    expect(formatCidr(gateway!.v6.subnet!)).toBe('fd00:9::/64');
    expect(gateway!.v6.gateway).toBeUndefined();
    // A destination with host bits is masked, as the kernel needs it.
    expect(gateway!.routes).toEqual([{ dst: '0.0.0.0/0' }, { dst: '10.8.0.0/16', gw: '10.9.0.1' }]);
  });

  it.each<[string, Record<string, unknown>, number, string]>([
    ['an unknown mode', { mode: 'l2' }, 7, 'mode "l2" is not "calico" or "gateway"'],
    ['a mode that is not a string', { mode: 1 }, 6, 'mode must be a JSON string'],
    ['a gateway key in calico mode', { ipv4_gateway: '10.0.0.1' }, 7, 'ipv4_gateway needs "mode"'],
    ['routes in calico mode', { routes: [] }, 7, 'routes needs "mode": "gateway"'],
    [
      'a subnet with host bits',
      { mode: 'gateway', ipv4_subnet: '10.9.0.1/24' },
      7,
      'ipv4_subnet "10.9.0.1/24"',
    ],
    [
      'a subnet of the other family',
      { mode: 'gateway', ipv6_subnet: '10.9.0.0/24' },
      7,
      'is not an IPv6 subnet',
    ],
    [
      'a subnet too small for a gateway',
      { mode: 'gateway', ipv4_subnet: '10.9.0.0/31' },
      7,
      'too small',
    ],
    [
      'a gateway outside the subnet',
      { mode: 'gateway', ipv4_subnet: '10.9.0.0/24', ipv4_gateway: '10.9.1.1' },
      7,
      'ipv4_gateway 10.9.1.1 is outside the segment 10.9.0.0/24',
    ],
    [
      'a gateway on the network address',
      { mode: 'gateway', ipv4_subnet: '10.9.0.0/24', ipv4_gateway: '10.9.0.0' },
      7,
      'is the network or broadcast address',
    ],
    [
      'a gateway on the broadcast address',
      { mode: 'gateway', ipv4_subnet: '10.9.0.0/24', ipv4_gateway: '10.9.0.255' },
      7,
      'is the network or broadcast address',
    ],
    [
      'a gateway that is not an address',
      { mode: 'gateway', ipv4_gateway: 'router' },
      7,
      'is not an IP address',
    ],
    ['routes that are not a list', { mode: 'gateway', routes: {} }, 6, 'routes must be a list'],
    [
      'a route without dst',
      { mode: 'gateway', routes: [{ gw: '10.0.0.1' }] },
      6,
      'routes[0].dst must be a JSON string',
    ],
    [
      'a route to a non-CIDR',
      { mode: 'gateway', routes: [{ dst: 'default' }] },
      7,
      'routes[0].dst "default"',
    ],
    [
      'a route via the other family',
      { mode: 'gateway', routes: [{ dst: '0.0.0.0/0', gw: 'fd00::1' }] },
      7,
      'different families',
    ],
  ])('refuses %s', (_, ipam, code, msg) => {
    expect(errorOf(() => parseGatewayConf(ipam))).toMatchObject({
      code,
      message: expect.stringContaining(msg),
    });
  });

  // The IPAM plugin gets the main plugin's config: its `type` is the main plugin's.
  it.each<[string, Record<string, unknown>, 'calico' | 'gateway', string | undefined]>([
    ["Calico's main plugin", { type: 'calico' }, 'calico', undefined],
    ['bridge', { type: 'bridge' }, 'gateway', 'bridge'],
    ['ptp', { type: 'ptp' }, 'gateway', 'ptp'],
    [
      'macvlan (its own top-level mode aside)',
      { type: 'macvlan', mode: 'bridge' },
      'gateway',
      'macvlan',
    ],
    ['ipvlan', { type: 'ipvlan', mode: 'l2' }, 'gateway', 'ipvlan'],
    ['no main plugin: a bare IPAM config', {}, 'calico', undefined],
    ['the IPAM plugin run on its own', { type: 'netledger-ipam' }, 'calico', undefined],
    ['a main plugin type that is not a string', { type: 7 }, 'calico', undefined],
    [
      'bridge with "mode": "calico": an explicit mode wins',
      { type: 'bridge', ipam: { mode: 'calico' } },
      'calico',
      undefined,
    ],
    [
      'calico with "mode": "gateway": an explicit mode wins',
      { type: 'calico', ipam: { mode: 'gateway' } },
      'gateway',
      undefined,
    ],
  ])('without ipam.mode, the main plugin chooses the mode: %s', (_, top, mode, mainPlugin) => {
    const { ipam, ...rest } = top as { ipam?: Record<string, unknown> };
    const conf = parseNetConf(
      JSON.stringify({
        cniVersion: '1.0.0',
        name: 'net',
        ...rest,
        ipam: { type: 'netledger-ipam', ipv4_pools: ['p'], ...ipam },
      }),
      {},
    );
    expect(conf.ipam.mode).toBe(mode);
    expect(conf.ipam.gateway?.mainPlugin).toBe(mainPlugin);
  });

  it('takes the gateway-mode keys under a main plugin that chose gateway mode, and refuses them under calico', () => {
    const conf = (type: string) =>
      JSON.stringify({
        cniVersion: '1.0.0',
        name: 'lan',
        type,
        ipam: {
          type: 'netledger-ipam',
          ipv4_subnet: '192.168.1.0/24',
          ipv4_gateway: '192.168.1.1',
        },
      });
    expect(formatIp(parseNetConf(conf('macvlan'), {}).ipam.gateway!.v4.gateway!)).toBe(
      '192.168.1.1',
    );
    expect(errorOf(() => parseNetConf(conf('calico'), {}))).toMatchObject({
      code: 7,
      message: 'ipv4_subnet needs "mode": "gateway" in ipam',
    });
  });

  it('reads mode from ipam only: a top-level mode is the main plugin’s (macvlan, ipvlan)', () => {
    const conf = parseNetConf(
      JSON.stringify({
        cniVersion: '1.0.0',
        name: 'lan',
        type: 'macvlan',
        mode: 'bridge',
        ipam: { type: 'netledger-ipam', mode: 'gateway', ipv4_subnet: '192.168.1.0/24' },
      }),
      {},
    );
    expect(conf.ipam.mode).toBe('gateway');
    const calico = parseNetConf(
      JSON.stringify({ cniVersion: '1.0.0', name: 'lan', mode: 'gateway', ipam: {} }),
      {},
    );
    expect(calico.ipam).toMatchObject({ mode: 'calico' });
    expect(calico.ipam.gateway).toBeUndefined();
  });
});
