import { describe, expect, it } from 'vitest';
import type { IPPool } from '@netledger/ipam-core';
import { candidateHandlesOf, ownerHandleOf, ServiceIndex } from './service-index.js';
import { loadBalancerHandle, sharedAddressHandle } from './lb-handle.js';
import { admitMembers, desireOf, planAddresses } from './plan-addresses.js';
import type { Member } from './plan-addresses.js';
import type { LbPool } from './lb-request.js';
import { parseLoadBalancerRequest } from './lb-request.js';
import { lbPoolOf } from './lb-state.js';
import { SERVICE_ANNOTATIONS } from '@netledger/ipam-core/load-balancer';
import type { ServiceSpec } from './test-lb-rig.js';
import { service } from './test-lb-rig.js';

const pool = (name: string, cidr: string, spec: Partial<IPPool['spec']> = {}): LbPool =>
  lbPoolOf({
    metadata: { name },
    spec: { cidr, allowedUses: ['LoadBalancer'], ...spec },
  });
const POOLS: LbPool[] = [
  pool('lb4', '10.0.0.0/24'),
  pool('lb4b', '10.0.1.0/24'),
  pool('lb6', 'fd00::/120'),
  pool('work', '10.9.0.0/24', { allowedUses: ['Workload', 'Tunnel'] }),
  pool('manual', '10.0.2.0/24', { assignmentMode: 'Manual' }),
];

describe('loadBalancerHandle', () => {
  it("is Calico's createHandle (its documented example)", () => {
    expect(
      loadBalancerHandle({
        name: 'nginx',
        namespace: 'default',
        uid: '1b4e28ba-2fa1-11d2-883f-0016cb4aa5d5',
      }),
    ).toBe('lb-SC16H04jiJPW1K6WLEQLBjzQ1KeG9aoq1Pq02u9G5k4');
  });

  it('lower-cases the name, namespace and uid, and differs from a sharing key handle', () => {
    const a = loadBalancerHandle({ name: 'Web', namespace: 'NS', uid: 'U' });
    expect(a).toBe(loadBalancerHandle({ name: 'web', namespace: 'ns', uid: 'u' }));
    expect(a).toMatch(/^lb-[A-Za-z0-9]+$/);
    expect(sharedAddressHandle({ namespace: 'ns', sharingKey: 'k' })).not.toBe(
      sharedAddressHandle({ namespace: 'ns', sharingKey: 'K' }),
    );
    expect(sharedAddressHandle({ namespace: 'ns', sharingKey: 'k' })).toMatch(/^lb-[A-Za-z0-9]+$/);
  });
});

describe('parseLoadBalancerRequest', () => {
  const a = SERVICE_ANNOTATIONS;
  it.each<[string, ServiceSpec, object]>([
    ['single-stack IPv4', { name: 's' }, { families: ['IPv4'], required: ['IPv4'] }],
    [
      'PreferDualStack: the second family is optional',
      { name: 's', ipFamilies: ['IPv6', 'IPv4'], ipFamilyPolicy: 'PreferDualStack' },
      { families: ['IPv6', 'IPv4'], required: ['IPv6'] },
    ],
    [
      'RequireDualStack',
      { name: 's', ipFamilies: ['IPv4', 'IPv6'], ipFamilyPolicy: 'RequireDualStack' },
      { families: ['IPv4', 'IPv6'], required: ['IPv4', 'IPv6'] },
    ],
    [
      'SingleStack keeps the first family',
      { name: 's', ipFamilies: ['IPv6', 'IPv4'], ipFamilyPolicy: 'SingleStack' },
      { families: ['IPv6'] },
    ],
    [
      'specific addresses are the whole request (canonical)',
      { name: 's', annotations: { [a.loadBalancerIps]: '["fd00:0::5", "10.0.0.5"]' } },
      { families: ['IPv4', 'IPv6'], specific: { IPv4: '10.0.0.5', IPv6: 'fd00::5' } },
    ],
    [
      'spec.loadBalancerIP',
      { name: 's', loadBalancerIp: '10.0.0.6' },
      { families: ['IPv4'], specific: { IPv4: '10.0.0.6' } },
    ],
    [
      'the annotation wins over spec.loadBalancerIP',
      {
        name: 's',
        loadBalancerIp: '10.0.0.6',
        annotations: { [a.loadBalancerIps]: '["10.0.0.7"]' },
      },
      { specific: { IPv4: '10.0.0.7' } },
    ],
    [
      'pools by name or CIDR, resolved to names',
      {
        name: 's',
        annotations: { [a.ipv4Pools]: '["lb4", "10.0.1.0/24"]', [a.ipv6Pools]: '["fd00::/120"]' },
      },
      { pools: { IPv4: ['lb4', 'lb4b'], IPv6: ['lb6'] } },
    ],
    [
      'a sharing key and the ports',
      {
        name: 's',
        annotations: { [a.sharingKey]: 'web.front' },
        ports: ['TCP/80', 'UDP/80', 'TCP/80'],
      },
      { sharingKey: 'web.front', ports: ['TCP/80', 'UDP/80'] },
    ],
  ])('%s', (_what, spec, want) => {
    const r = parseLoadBalancerRequest(service(spec), POOLS);
    expect(r).toMatchObject({ ok: true, request: want });
  });

  it.each<[string, Record<string, string>, string]>([
    [
      'not JSON',
      { [SERVICE_ANNOTATIONS.loadBalancerIps]: '10.0.0.1' },
      'projectcalico.org/loadBalancerIPs: not JSON: "10.0.0.1"',
    ],
    [
      'not a list of strings',
      { [SERVICE_ANNOTATIONS.ipv4Pools]: '[1]' },
      'projectcalico.org/ipv4pools: must be a JSON list of strings, got [1]',
    ],
    [
      'not an address',
      { [SERVICE_ANNOTATIONS.loadBalancerIps]: '["x"]' },
      'projectcalico.org/loadBalancerIPs: "x" is not an IP address',
    ],
    [
      'two IPv4',
      { [SERVICE_ANNOTATIONS.loadBalancerIps]: '["10.0.0.1","10.0.0.2"]' },
      'projectcalico.org/loadBalancerIPs: at most one IPv4 address, got 10.0.0.1 and 10.0.0.2',
    ],
    [
      'an unknown pool',
      { [SERVICE_ANNOTATIONS.ipv4Pools]: '["nope"]' },
      'projectcalico.org/ipv4pools: no IP pool named "nope"',
    ],
    [
      'a pool of the other family',
      { [SERVICE_ANNOTATIONS.ipv4Pools]: '["lb6"]' },
      'projectcalico.org/ipv4pools: IP pool lb6 (fd00::/120) is not IPv4',
    ],
    [
      'a workload pool',
      { [SERVICE_ANNOTATIONS.ipv4Pools]: '["work"]' },
      'projectcalico.org/ipv4pools: IP pool work does not allow use LoadBalancer (allowedUses)',
    ],
    [
      'an address outside the named pools',
      {
        [SERVICE_ANNOTATIONS.ipv4Pools]: '["lb4"]',
        [SERVICE_ANNOTATIONS.loadBalancerIps]: '["10.0.1.1"]',
      },
      '10.0.1.1 is in none of the pools projectcalico.org/ipv4pools names',
    ],
    [
      'a bad sharing key',
      { [SERVICE_ANNOTATIONS.sharingKey]: '-x' },
      'netledger.io/sharing-key: "-x" is not a valid key',
    ],
  ])('refuses %s', (_what, annotations, message) => {
    const r = parseLoadBalancerRequest(service({ name: 's', annotations }), POOLS);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.message).toContain(message);
  });
});

const member = (spec: ServiceSpec): Member => {
  const svc = service(spec);
  const r = parseLoadBalancerRequest(svc, POOLS);
  if (!r.ok) throw new Error(r.message);
  return { svc, request: r.request };
};

describe('admitMembers', () => {
  const key = { [SERVICE_ANNOTATIONS.sharingKey]: 'k' };
  it('admits disjoint ports, refuses a clash naming the port and the holder; the oldest first', () => {
    const a = member({ name: 'a', annotations: key, ports: ['TCP/80'] });
    const b = member({ name: 'b', annotations: key, ports: ['UDP/80', 'TCP/53'] });
    const c = member({ name: 'c', annotations: key, ports: ['TCP/53', 'TCP/80'] });
    const r = admitMembers([c, b, a], []);
    expect(r.admitted.map((m) => m.svc.metadata.name)).toEqual(['a', 'b']);
    expect(r.refused).toEqual([
      {
        svc: c.svc,
        reason: 'PortClash',
        message:
          'not sharing the address of sharing key "k": ports TCP/53, TCP/80 already used by service b, a',
      },
    ]);
  });

  it('keeps a Service that already shows the address ahead of an older newcomer', () => {
    const older = member({ name: 'older', annotations: key });
    const holder = member({ name: 'holder', annotations: key, ingress: [{ ip: '10.0.0.1' }] });
    const r = admitMembers([older, holder], ['10.0.0.1']);
    expect(r.admitted.map((m) => m.svc.metadata.name)).toEqual(['holder']);
    expect(r.refused.map((x) => x.svc.metadata.name)).toEqual(['older']);
  });

  it('refuses a specific address or pool list the group does not use', () => {
    const a = member({ name: 'a', annotations: key, ports: ['TCP/1'] });
    const b = member({
      name: 'b',
      annotations: { ...key, [SERVICE_ANNOTATIONS.loadBalancerIps]: '["10.0.0.9"]' },
      ports: ['TCP/2'],
    });
    const c = member({
      name: 'c',
      annotations: { ...key, [SERVICE_ANNOTATIONS.ipv4Pools]: '["lb4b"]' },
      ports: ['TCP/3'],
    });
    const d = member({
      name: 'd',
      annotations: { ...key, [SERVICE_ANNOTATIONS.ipv4Pools]: '["lb4"]' },
      ports: ['TCP/4'],
    });
    const r = admitMembers([a, b, c, d], ['10.0.0.1']);
    expect(r.admitted.map((m) => m.svc.metadata.name)).toEqual(['a', 'c']);
    expect(r.refused.map((x) => [x.svc.metadata.name, x.reason, x.message])).toEqual([
      [
        'b',
        'SharingConflict',
        'asks for 10.0.0.9, but the services of sharing key "k" use 10.0.0.1',
      ],
      [
        'd',
        'SharingConflict',
        'asks for IPv4 pools lb4, but the services of sharing key "k" use lb4b',
      ],
    ]);
  });
});

describe('planAddresses', () => {
  const desire = (spec: ServiceSpec) => desireOf([member(spec)]);
  it.each<[string, ServiceSpec, string[], object]>([
    [
      'nothing held: assign the family',
      { name: 's' },
      [],
      { keep: {}, release: [], assign: [{ family: 'IPv4' }] },
    ],
    [
      'held: keep',
      { name: 's' },
      ['10.0.0.1'],
      { keep: { IPv4: '10.0.0.1' }, release: [], assign: [] },
    ],
    [
      'two of one family: keep the lowest, release the other',
      { name: 's' },
      ['10.0.0.9', '10.0.0.1'],
      { keep: { IPv4: '10.0.0.1' }, release: [{ ip: '10.0.0.9', why: 'duplicate' }] },
    ],
    [
      'a family no longer asked for',
      { name: 's' },
      ['10.0.0.1', 'fd00::1'],
      { release: [{ ip: 'fd00::1', why: 'family-not-requested' }] },
    ],
    [
      'another specific address',
      { name: 's', loadBalancerIp: '10.0.0.2' },
      ['10.0.0.1'],
      {
        release: [{ ip: '10.0.0.1', why: 'not-the-requested-address' }],
        assign: [{ family: 'IPv4', ip: '10.0.0.2' }],
      },
    ],
    [
      'outside the requested pools',
      { name: 's', annotations: { [SERVICE_ANNOTATIONS.ipv4Pools]: '["lb4b"]' } },
      ['10.0.0.1'],
      {
        release: [{ ip: '10.0.0.1', why: 'outside-requested-pools' }],
        assign: [{ family: 'IPv4', pools: ['lb4b'] }],
      },
    ],
    [
      'in no pool any more',
      { name: 's' },
      ['10.5.0.1'],
      { release: [{ ip: '10.5.0.1', why: 'pool-gone' }] },
    ],
    [
      'in a Manual pool nobody names',
      { name: 's' },
      ['10.0.2.1'],
      { release: [{ ip: '10.0.2.1', why: 'manual-pool-not-requested' }] },
    ],
    [
      'in a Manual pool that is named',
      { name: 's', annotations: { [SERVICE_ANNOTATIONS.ipv4Pools]: '["manual"]' } },
      ['10.0.2.1'],
      { keep: { IPv4: '10.0.2.1' }, release: [] },
    ],
  ])('%s', (_what, spec, current, want) => {
    expect(planAddresses({ desire: desire(spec), current, pools: POOLS })).toMatchObject(want);
  });

  it('prefers the address the Service shows among duplicates', () => {
    const p = planAddresses({
      desire: desire({ name: 's' }),
      current: ['10.0.0.1', '10.0.0.9'],
      pools: POOLS,
      preferred: ['10.0.0.9'],
    });
    expect(p.keep).toEqual({ IPv4: '10.0.0.9' });
  });
});

describe('ServiceIndex', () => {
  it('follows a Service from its own handle to a sharing key and away, naming the handles touched', () => {
    const index = new ServiceIndex('AllServices');
    const s = service({ name: 'web' });
    const own = loadBalancerHandle({ name: 'web', namespace: 'default', uid: s.metadata.uid });
    const shared = sharedAddressHandle({ namespace: 'default', sharingKey: 'k' });
    expect(index.update('default/web', s)).toEqual(new Set([own]));
    expect(index.ownerOf('default/web')).toBe(own);
    const keyed = {
      ...s,
      metadata: { ...s.metadata, annotations: { [SERVICE_ANNOTATIONS.sharingKey]: 'k' } },
    };
    expect(ownerHandleOf(keyed, 'AllServices')).toBe(shared);
    expect(candidateHandlesOf(keyed)).toEqual([own, shared]);
    expect(index.update('default/web', keyed)).toEqual(new Set([own, shared]));
    expect(index.membersOf(shared)).toEqual(['default/web']);
    expect(index.membersOf(own)).toEqual([]);
    expect(index.candidatesOf(own)).toEqual(['default/web']);
    const clusterIp = { ...keyed, type: 'ClusterIP', ingress: [{ ip: '10.0.0.1' }] };
    expect(index.update('default/web', clusterIp)).toEqual(new Set([own, shared]));
    expect(index.ownerOf('default/web')).toBeUndefined();
    expect(index.candidatesOf(shared)).toEqual(['default/web']);
    expect(index.update('default/web', undefined)).toEqual(new Set([own, shared]));
    expect(index.handles()).toEqual(new Set());
  });
});
