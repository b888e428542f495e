import { formatCidr, formatIp, parseCidr, parseIp } from '@netledger/accounting';
import type { IPPool } from '@netledger/ipam-core';
import { describe, expect, it } from 'vitest';
import { CniError } from './cni-error.js';
import type { GatewayConf } from './gateway-conf.js';
import {
  gatewayResult,
  planGateway,
  reservationNameFor,
  reservedAddresses,
} from './gateway-mode.js';
import type { FamilyPools } from './gateway-mode.js';

const pool = (name: string, cidr: string): IPPool => ({ metadata: { name }, spec: { cidr } });
const none: GatewayConf = { v4: {}, v6: {}, routes: [] };
const v4 = (pools: IPPool[], requested = pools.map((p) => p.metadata.name)): FamilyPools => ({
  version: 4,
  requested,
  pools,
});

const errorOf = (f: () => unknown): CniError => {
  try {
    f();
  } catch (e) {
    if (e instanceof CniError) return e;
    throw e;
  }
  throw new Error('no error');
};

const poolsOf = (families: readonly FamilyPools[]): IPPool[] => families.flatMap((f) => f.pools);

const shown = (plan: ReturnType<typeof planGateway>) =>
  plan.segments.map((s) => `${formatCidr(s.subnet)} via ${formatIp(s.gateway)}`);

describe('planGateway', () => {
  it.each<[string, GatewayConf, FamilyPools[], string[]]>([
    [
      'one pool: the pool is the segment, its first host address the gateway',
      none,
      [v4([pool('p', '10.9.0.0/24')])],
      ['10.9.0.0/24 via 10.9.0.1'],
    ],
    [
      'two pools inside the configured segment',
      { ...none, v4: { subnet: parseCidr('10.9.0.0/23') } },
      [v4([pool('a', '10.9.0.0/24'), pool('b', '10.9.1.0/24')])],
      ['10.9.0.0/23 via 10.9.0.1'],
    ],
    [
      'a LAN segment whose router is outside the pool (macvlan)',
      { ...none, v4: { subnet: parseCidr('192.168.1.0/24'), gateway: parseIp('192.168.1.1') } },
      [v4([pool('lan', '192.168.1.128/25')])],
      ['192.168.1.0/24 via 192.168.1.1'],
    ],
    [
      'both families',
      none,
      [
        v4([pool('p', '10.9.0.0/24')]),
        { version: 6, requested: ['p6'], pools: [pool('p6', 'fd00:9::/120')] },
      ],
      ['10.9.0.0/24 via 10.9.0.1', 'fd00:9::/120 via fd00:9::1'],
    ],
  ])('%s', (_, conf, families, segments) => {
    expect(
      shown(planGateway({ network: 'net', conf, families, pools: poolsOf(families) })),
    ).toEqual(segments);
  });

  it.each<[string, GatewayConf, FamilyPools[], string]>([
    ['no pools named', none, [v4([], [])], '"mode": "gateway" needs ipv4_pools'],
    [
      'no pools named under a main plugin that chose gateway mode',
      { ...none, mainPlugin: 'bridge' },
      [v4([], [])],
      'network net: gateway mode (the default under main plugin "bridge") needs ipv4_pools: the pools of the segment',
    ],
    [
      'two pools and no segment',
      none,
      [v4([pool('a', '10.9.0.0/24'), pool('b', '10.9.1.0/24')])],
      'ipv4_pools names 2 pools; give ipv4_subnet',
    ],
    [
      'a pool outside the segment',
      { ...none, v4: { subnet: parseCidr('10.9.0.0/24') } },
      [v4([pool('a', '10.9.0.0/24'), pool('b', '10.9.1.0/24')])],
      'pool b (10.9.1.0/24) is outside the segment 10.9.0.0/24',
    ],
    [
      'a gateway outside the one pool',
      { ...none, v4: { gateway: parseIp('10.8.0.1') } },
      [v4([pool('a', '10.9.0.0/24')])],
      'ipv4_gateway 10.8.0.1 is outside the segment 10.9.0.0/24',
    ],
    [
      "a gateway on the pool's broadcast address",
      { ...none, v4: { gateway: parseIp('10.9.0.255') } },
      [v4([pool('a', '10.9.0.0/24')])],
      'is the network or broadcast address',
    ],
  ])('refuses %s (7)', (_, conf, families, msg) => {
    expect(
      errorOf(() => planGateway({ network: 'net', conf, families, pools: poolsOf(families) })),
    ).toMatchObject({
      code: 7,
      message: expect.stringContaining(msg),
    });
  });

  it('reserves the gateway, network and broadcast addresses (IPv6: no broadcast)', () => {
    const families: FamilyPools[] = [
      v4([pool('p', '10.9.0.0/24')]),
      { version: 6, requested: ['p6'], pools: [pool('p6', 'fd00:9::/120')] },
    ];
    const plan = planGateway({ network: 'net', conf: none, families, pools: poolsOf(families) });
    expect(reservedAddresses(plan).map(formatIp)).toEqual([
      '10.9.0.1',
      '10.9.0.0',
      '10.9.0.255',
      'fd00:9::1',
      'fd00:9::',
    ]);
  });
});

describe('planGateway: the blocks that can hold a reserved address', () => {
  it.each<[string, GatewayConf, IPPool[], string[]]>([
    [
      'a /24 pool of /26 blocks: the first block (network, gateway) and the last (broadcast)',
      none,
      [{ ...pool('p', '10.9.0.0/24'), spec: { cidr: '10.9.0.0/24', blockSize: 26 } }],
      ['10.9.0.0/26', '10.9.0.192/26'],
    ],
    [
      "a pool without a block size: Calico's default, 26",
      none,
      [pool('p', '10.9.0.0/24')],
      ['10.9.0.0/26', '10.9.0.192/26'],
    ],
    [
      "a LAN whose router and network address lie in no pool: only the broadcast address's block",
      { ...none, v4: { subnet: parseCidr('192.168.1.0/24'), gateway: parseIp('192.168.1.1') } },
      [{ ...pool('lan', '192.168.1.128/25'), spec: { cidr: '192.168.1.128/25', blockSize: 28 } }],
      ['192.168.1.240/28'],
    ],
  ])('%s', (_, conf, pools, blocks) => {
    const plan = planGateway({ network: 'net', conf, families: [v4(pools)], pools });
    expect(plan.reservedBlocks).toEqual(blocks);
  });
});

describe('reservationNameFor', () => {
  it.each([
    ['podnet', /^netledger-gw-podnet-[0-9a-f]{8}$/],
    ['My_Net.1', /^netledger-gw-my-net-1-[0-9a-f]{8}$/],
    ['x'.repeat(200), /^netledger-gw-x{40}-[0-9a-f]{8}$/],
    ['_', /^netledger-gw-[0-9a-f]{8}$/],
  ])('%s -> %s', (network, name) => {
    const r = reservationNameFor(network);
    expect(r).toMatch(name);
    // A DNS-1123 label: valid as an IPReservation's name in every store.
    expect(r).toMatch(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/);
  });

  it('keeps networks apart whose names differ only in case or punctuation', () => {
    const names = ['net_a', 'net-a', 'Net-A', 'net.a'].map(reservationNameFor);
    expect(new Set(names).size).toBe(4);
  });
});

describe('gatewayResult', () => {
  const plan = planGateway({
    network: 'net',
    conf: { ...none, routes: [{ dst: '0.0.0.0/0' }] },
    families: [v4([pool('p', '10.9.0.0/24')])],
    pools: [pool('p', '10.9.0.0/24')],
  });

  it("widens the block mask to the segment's prefix and names the gateway and routes", () => {
    expect(gatewayResult(plan, ['10.9.0.70/26'])).toEqual({
      ips: ['10.9.0.70/24'],
      gateways: { v4: '10.9.0.1' },
      routes: [{ dst: '0.0.0.0/0' }],
    });
    expect(gatewayResult(plan, ['10.9.0.63'])).toMatchObject({ ips: ['10.9.0.63/24'] });
  });

  it.each([
    ['10.9.0.1/26', 'is the gateway of 10.9.0.0/24'],
    ['10.9.0.0/26', 'is the network or broadcast address of 10.9.0.0/24'],
    ['10.9.0.255/26', 'is the network or broadcast address'],
    ['10.8.0.5/26', 'is outside the segments 10.9.0.0/24'],
  ])('refuses %s (999): it would break the segment', (ip, msg) => {
    expect(errorOf(() => gatewayResult(plan, [ip]))).toMatchObject({
      code: 999,
      message: expect.stringContaining(msg),
    });
  });
});
