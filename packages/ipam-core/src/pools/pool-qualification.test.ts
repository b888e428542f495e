import { describe, expect, it } from 'vitest';
import type { IpamErrorCode } from '../errors.js';
import type { IPPool } from '../model/resources.js';
import {
  determinePools,
  filterPoolsByUse,
  maxPrefixLength,
  selectsNamespace,
  selectsNode,
} from './pool-qualification.js';
import { testPool } from './test-pools.js';

const node = { name: 'node1', labels: { foo: 'bar' } };

function errorOf(f: () => unknown): { code?: IpamErrorCode; message?: string } {
  try {
    f();
  } catch (e) {
    return e as { code: IpamErrorCode; message: string };
  }
  return {};
}

// Calico's "determinePools tests" table (ipam_test.go), for each family: pool1 with a host bit
// set in its stored CIDR, node labels foo=bar.
describe.each([
  { version: 4 as const, cidr1: '10.0.0.1/24', req1: '10.0.0.0/24', cidr2: '20.0.0.0/24' },
  {
    version: 6 as const,
    cidr1: 'fd80:24e2:f998:72d6::1/120',
    req1: 'fd80:24e2:f998:72d6::/120',
    cidr2: 'fd80:24e2:f998:72d7::/120',
  },
])('determinePools (IPv$version)', ({ version, cidr1, req1, cidr2 }) => {
  const P1 = 'pool1';
  const P2 = 'pool2';
  it.each<[string, boolean, boolean, string, string, boolean, boolean, string[] | 'error']>([
    ['both enabled, no selectors, nothing requested', true, true, '', '', false, false, [P1, P2]],
    ['both enabled, no selectors, pool1 requested', true, true, '', '', true, false, [P1]],
    [
      'pool1 matching, pool2 not, nothing requested',
      true,
      true,
      'foo == "bar"',
      'foo != "bar"',
      false,
      false,
      [P1],
    ],
    [
      'pool1 matching, pool2 not, pool1 requested',
      true,
      true,
      'foo == "bar"',
      'foo != "bar"',
      true,
      false,
      [P1],
    ],
    [
      'pool1 mismatching, nothing requested',
      true,
      true,
      'foo != "bar"',
      'all()',
      false,
      false,
      [P2],
    ],
    ['pool1 mismatching but requested', true, true, 'foo != "bar"', '', true, false, [P1]],
    ['pool1 matching, pool2 requested', true, true, 'foo == "bar"', '', false, true, [P2]],
    ['pool1 disabled, nothing requested', false, true, '', '', false, false, [P2]],
    ['pool1 disabled and requested', false, true, '', '', true, false, 'error'],
    ['pool1 disabled, pool2 requested', false, true, '', '', false, true, [P2]],
    ['pool1 disabled, pool2 matching', false, true, '', 'foo == "bar"', false, false, [P2]],
    [
      'pool1 disabled, pool2 matching and requested',
      false,
      true,
      '',
      'foo == "bar"',
      false,
      true,
      [P2],
    ],
    ['pool1 disabled, pool2 mismatching', false, true, '', 'foo != "bar"', false, false, []],
    [
      'pool1 disabled, pool2 mismatching but requested',
      false,
      true,
      '',
      'foo != "bar"',
      false,
      true,
      [P2],
    ],
  ])('%s', (_what, enabled1, enabled2, sel1, sel2, request1, request2, expected) => {
    const pools = [
      testPool(P2, { cidr: cidr2, disabled: !enabled2, nodeSelector: sel2 }),
      testPool(P1, { cidr: cidr1, disabled: !enabled1, nodeSelector: sel1 }),
    ];
    const requested = [...(request1 ? [req1] : []), ...(request2 ? [cidr2] : [])];
    const run = (): string[] =>
      determinePools({
        requested,
        version,
        node,
        maxPrefixLen: maxPrefixLength(version),
        pools,
      }).selected.map((p) => p.metadata.name);
    if (expected === 'error') {
      expect(errorOf(run)).toMatchObject({
        code: 'InvalidArgument',
        message: `the given pool (${req1}) does not exist, or is not enabled`,
      });
    } else {
      expect(run()).toEqual(expected);
    }
  });
});

describe('determinePools requests', () => {
  const pools = [
    testPool('pool1', { cidr: '10.0.0.0/24' }),
    testPool('pool2', { cidr: '20.0.0.0/24' }),
    testPool('pool3', { cidr: '30.0.0.0/24', disabled: true }),
    testPool('v6', { cidr: 'fd80::/120' }),
    testPool('manual', { cidr: '40.0.0.0/24', assignmentMode: 'Manual' }),
    testPool('small', { cidr: '90.0.0.0/24', blockSize: 31 }),
  ];
  const run = (requested: string[], version: 4 | 6 = 4, maxPrefixLen = 32): string[] =>
    determinePools({ requested, version, node, maxPrefixLen, pools }).selected.map(
      (p) => p.metadata.name,
    );

  it('keeps request order', () => {
    expect(run(['20.0.0.0/24', '10.0.0.0/24'])).toEqual(['pool2', 'pool1']);
    expect(run(['10.0.0.0/24', '20.0.0.0/24'])).toEqual(['pool1', 'pool2']);
  });
  it('accepts pool names', () => {
    expect(run(['pool2', 'manual'])).toEqual(['pool2', 'manual']);
  });
  it('masks a requested CIDR before matching', () => {
    expect(run(['10.0.0.7/24'])).toEqual(['pool1']);
  });
  it.each<[string, string[], 4 | 6, number, IpamErrorCode, string]>([
    [
      'a disabled pool',
      ['10.0.0.0/24', '30.0.0.0/24'],
      4,
      32,
      'InvalidArgument',
      'the given pool (30.0.0.0/24) does not exist, or is not enabled',
    ],
    [
      'a missing pool',
      ['10.0.0.0/24', '40.0.1.0/24'],
      4,
      32,
      'InvalidArgument',
      'the given pool (40.0.1.0/24) does not exist, or is not enabled',
    ],
    [
      'a missing name',
      ['nope'],
      4,
      32,
      'InvalidArgument',
      'the given pool (nope) does not exist, or is not enabled',
    ],
    [
      'a pool with blocks too small for the reservation',
      ['90.0.0.0/24'],
      4,
      29,
      'InvalidArgument',
      'the given pool (90.0.0.0/24) does not exist, or is not enabled',
    ],
    [
      'a v6 CIDR in a v4 list',
      ['10.0.0.0/24', 'fd80::/120'],
      4,
      32,
      'InvalidArgument',
      'provided IPv4 IPPools list contains one or more IPv6 IPPools',
    ],
    [
      'a v6 name in a v4 list',
      ['v6'],
      4,
      32,
      'InvalidArgument',
      'provided IPv4 IPPools list contains one or more IPv6 IPPools',
    ],
    [
      'a v4 CIDR in a v6 list',
      ['10.0.0.0/24'],
      6,
      128,
      'InvalidArgument',
      'provided IPv6 IPPools list contains one or more IPv4 IPPools',
    ],
    [
      'a malformed CIDR',
      ['10.0.0/24'],
      4,
      32,
      'InvalidArgument',
      'invalid requested pool CIDR "10.0.0/24"',
    ],
    [
      'no qualified pool at all',
      ['10.0.0.0/24'],
      4,
      19,
      'NoQualifiedPool',
      'cannot find a qualified ippool',
    ],
  ])('refuses %s', (_what, requested, version, maxPrefixLen, code, message) => {
    expect(errorOf(() => run(requested, version, maxPrefixLen))).toMatchObject({ code, message });
  });

  it('leaves Manual pools out unless requested', () => {
    expect(run([])).toEqual(['pool1', 'pool2', 'small']);
  });
  it('applies the block-size exclusion when nothing is requested (Calico quirk fixed)', () => {
    expect(run([], 4, 29)).toEqual(['pool1', 'pool2']);
  });
  it('returns every enabled pool of the version as `enabled`', () => {
    const out = determinePools({ version: 4, node, maxPrefixLen: 29, pools });
    expect(out.enabled.map((p) => p.metadata.name)).toEqual(['manual', 'pool1', 'pool2', 'small']);
  });
  it('throws NoQualifiedPool when no pool of the version is enabled', () => {
    const v4only = [testPool('a', { cidr: '10.0.0.0/24' })];
    expect(
      errorOf(() => determinePools({ version: 6, node, maxPrefixLen: 128, pools: v4only })),
    ).toMatchObject({
      code: 'NoQualifiedPool',
    });
  });
  it('propagates an invalid selector as InvalidArgument', () => {
    const bad = [testPool('a', { cidr: '10.0.0.0/24', nodeSelector: 'foo =' })];
    expect(
      errorOf(() => determinePools({ version: 4, node, maxPrefixLen: 32, pools: bad })).code,
    ).toBe('InvalidArgument');
  });
});

// §5.2 item 21.
describe('namespace selectors', () => {
  const prod = { environment: 'production' };
  const dev = { environment: 'development' };
  it.each([
    ["environment == 'production'", prod, true],
    ["environment == 'production'", dev, false],
    ["environment == 'production'", undefined, false],
    ['', dev, true],
    ['!has(environment)', undefined, true],
  ])('%j selects %j: %s', (selector, labels, expected) => {
    expect(
      selectsNamespace(testPool('p', { cidr: '10.0.0.0/24', namespaceSelector: selector }), labels),
    ).toBe(expected);
  });

  const pools = [
    testPool('both', {
      cidr: '10.0.0.0/24',
      nodeSelector: 'foo == "bar"',
      namespaceSelector: "environment == 'production'",
    }),
    testPool('ns-only', {
      cidr: '10.0.1.0/24',
      nodeSelector: 'foo == "x"',
      namespaceSelector: "environment == 'production'",
    }),
    testPool('dev', { cidr: '10.0.2.0/24', namespaceSelector: "environment == 'development'" }),
  ];
  const run = (namespaceLabels?: Record<string, string>, requested: string[] = []): string[] =>
    determinePools({
      requested,
      version: 4,
      node,
      namespaceLabels,
      maxPrefixLen: 32,
      pools,
    }).selected.map((p) => p.metadata.name);

  it('needs both the node and the namespace selector to match', () => {
    expect(run(prod)).toEqual(['both']);
    expect(run(dev)).toEqual(['dev']);
    expect(run(undefined)).toEqual([]);
  });
  it('ignores namespace selectors for requested pools', () => {
    expect(run(dev, ['10.0.0.0/24', '10.0.1.0/24'])).toEqual(['both', 'ns-only']);
  });
  it('refuses an invalid namespace selector', () => {
    const bad = [testPool('a', { cidr: '10.0.0.0/24', namespaceSelector: 'environment ==' })];
    expect(
      errorOf(() => determinePools({ version: 4, node, maxPrefixLen: 32, pools: bad })).code,
    ).toBe('InvalidArgument');
  });
});

describe('selectsNode', () => {
  it.each([
    ['', true],
    ['all()', true],
    ['foo == "bar"', true],
    ['foo != "bar"', false],
  ])('%j -> %s', (selector, expected) => {
    const pool: IPPool = {
      metadata: { name: 'p' },
      spec: { cidr: '10.0.0.0/24', nodeSelector: selector },
    };
    expect(selectsNode(pool, node.labels)).toBe(expected);
  });
});

// §5.2 item 18.
describe('filterPoolsByUse', () => {
  const tunnel = testPool('tunnel', { cidr: '192.168.3.0/24', allowedUses: ['Tunnel'] });
  const any = testPool('any', { cidr: '192.168.4.0/24' });
  const lb = testPool('lb', { cidr: '192.168.5.0/24', allowedUses: ['LoadBalancer'] });
  const raw: IPPool = { metadata: { name: 'raw' }, spec: { cidr: '192.168.6.0/24' } };
  it.each<[string, IPPool[], 'Workload' | 'Tunnel' | 'LoadBalancer', string[]]>([
    ['a Workload request and a Tunnel-only pool', [tunnel], 'Workload', []],
    ['a Tunnel request and a Tunnel-only pool', [tunnel], 'Tunnel', ['tunnel']],
    ['a Workload request and default pools', [tunnel, any, raw], 'Workload', ['any', 'raw']],
    ['a Tunnel request keeps order', [any, tunnel], 'Tunnel', ['any', 'tunnel']],
    ['a LoadBalancer request', [any, lb], 'LoadBalancer', ['lb']],
  ])('%s', (_what, pools, use, expected) => {
    expect(filterPoolsByUse(pools, use).map((p) => p.metadata.name)).toEqual(expected);
  });
});

describe('maxPrefixLength', () => {
  it.each<[4 | 6, { startOfBlock: number; endOfBlock: number } | undefined, number]>([
    [4, undefined, 32],
    [6, undefined, 128],
    [4, { startOfBlock: 3, endOfBlock: 1 }, 29],
    [6, { startOfBlock: 3, endOfBlock: 1 }, 125],
    [4, { startOfBlock: 2, endOfBlock: 1 }, 30],
    [4, { startOfBlock: 32, endOfBlock: 33 }, 25],
    [4, { startOfBlock: 1, endOfBlock: 0 }, 31],
  ])('IPv%d with %j -> %d', (version, reserved, expected) => {
    expect(maxPrefixLength(version, reserved)).toBe(expected);
  });
  it.each([
    [{ startOfBlock: 0, endOfBlock: 0 }],
    [{ startOfBlock: -3, endOfBlock: 1 }],
    [{ startOfBlock: 2 ** 33, endOfBlock: 0 }],
  ])('refuses %j', (reserved) => {
    expect(errorOf(() => maxPrefixLength(4, reserved))).toMatchObject({
      code: 'InvalidArgument',
      message: 'HostReservedAttr has wrong parameters',
    });
  });
});
