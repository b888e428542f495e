import { describe, expect, it } from 'vitest';
import type { AllocationFacts } from './allocation-facts.js';
import { allocationIsValid, isTunnelAllocation } from './allocation-is-valid.js';
import { facts, withPod } from './test-allocation-facts.js';

const vmAttrs = { node: 'node-a', namespace: 'ns', pod: 'virt-launcher-1', 'vmi-name': 'vm-1' };
const tunnel = { node: 'node-a', type: 'vxlanTunnelAddress' };

// Every rule of Calico's allocationIsValid (reference §A.7), in order.
describe('allocationIsValid', () => {
  it.each<[string, AllocationFacts, boolean, string]>([
    ['tunnel with a node', facts({ attrs: tunnel }), true, 'tunnel-has-node'],
    [
      'tunnel whose Calico node is gone',
      facts({ attrs: tunnel, knode: '' }),
      false,
      'tunnel-node-unknown',
    ],
    [
      'tunnel never checked against pods',
      facts({ attrs: tunnel, pod: { outcome: 'notFound' } }),
      true,
      'tunnel-has-node',
    ],
    [
      'VM without namespace',
      facts({ attrs: { 'vmi-name': 'vm-1' }, vm: 'notFound' }),
      true,
      'vm-attrs-missing',
    ],
    [
      'VM with empty vmi-name',
      facts({ attrs: { ...vmAttrs, 'vmi-name': '' }, vm: 'notFound' }),
      true,
      'vm-attrs-missing',
    ],
    [
      'VM, KubeVirt absent',
      facts({ attrs: vmAttrs, vm: 'kubevirtAbsent' }),
      true,
      'kubevirt-absent',
    ],
    ['VM, lookup error', facts({ attrs: vmAttrs, vm: 'error' }), true, 'vm-lookup-error'],
    ['VM, not looked up', facts({ attrs: vmAttrs }), true, 'vm-lookup-error'],
    ['VM exists', facts({ attrs: vmAttrs, vm: 'vmExists' }), true, 'vm-exists'],
    [
      'standalone VMI exists',
      facts({ attrs: vmAttrs, vm: 'standaloneVmiExists' }),
      true,
      'standalone-vmi-exists',
    ],
    ['VM gone (pod ignored)', facts({ attrs: vmAttrs, vm: 'notFound' }), false, 'vm-gone'],
    [
      'missing pod attr',
      facts({ attrs: { node: 'node-a', namespace: 'ns' } }),
      true,
      'pod-attrs-missing',
    ],
    [
      'missing namespace attr',
      facts({ attrs: { node: 'node-a', pod: 'p' } }),
      true,
      'pod-attrs-missing',
    ],
    ['pod lookup error', facts({ pod: { outcome: 'error' } }), true, 'pod-lookup-error'],
    ['pod not looked up', facts({ pod: undefined }), true, 'pod-lookup-error'],
    ['pod not found', facts({ pod: { outcome: 'notFound' } }), false, 'pod-not-found'],
    ['pod rescheduled to another node', withPod({ nodeName: 'node-b' }), false, 'pod-rescheduled'],
    [
      'pod not yet scheduled',
      withPod({ nodeName: '', podIp: '', podIps: [] }),
      true,
      'pod-ip-not-reported',
    ],
    [
      'knode unknown skips the node check',
      withPod({ nodeName: 'node-b' }, { knode: '' }),
      true,
      'ip-in-endpoint',
    ],
    ['podIP empty', withPod({ podIp: '' }), true, 'pod-ip-not-reported'],
    ['podIPs empty', withPod({ podIps: [] }), true, 'pod-ip-not-reported'],
    ['evicted pod', withPod({ phase: 'Failed', reason: 'Evicted' }), false, 'pod-evicted'],
    [
      'failed but not evicted',
      withPod({ phase: 'Failed', reason: 'Error' }),
      true,
      'ip-in-endpoint',
    ],
    [
      'endpoint conversion failed',
      withPod({ endpointIpNetworks: null }),
      true,
      'endpoint-unconvertible',
    ],
    [
      'endpoint IP unparseable',
      withPod({ endpointIpNetworks: ['10.0.0.9/32', 'bogus'] }),
      true,
      'endpoint-unparseable',
    ],
    [
      'endpoint prefix unparseable',
      withPod({ endpointIpNetworks: ['10.0.0.5/33'] }),
      true,
      'endpoint-unparseable',
    ],
    [
      'IP in a second (Multus) endpoint',
      withPod({ endpointIpNetworks: ['10.0.1.1/32', 'fd00::1/128', '10.0.0.5/32'] }),
      true,
      'ip-in-endpoint',
    ],
    ['bare endpoint IP', withPod({ endpointIpNetworks: ['10.0.0.5'] }), true, 'ip-in-endpoint'],
    [
      'pod has another IP (reused)',
      withPod({ endpointIpNetworks: ['10.0.0.6/32'] }),
      false,
      'ip-not-in-endpoint',
    ],
    ['pod has no endpoint IPs', withPod({ endpointIpNetworks: [] }), false, 'ip-not-in-endpoint'],
    [
      'same bits, other version',
      withPod({ endpointIpNetworks: ['::a00:5/128'] }),
      false,
      'ip-not-in-endpoint',
    ],
  ])('%s', (_name, input, valid, reason) => {
    expect(allocationIsValid(input)).toEqual({ valid, reason });
  });

  it.each([
    ['ipipTunnelAddress', true],
    ['vxlanTunnelAddress', true],
    ['vxlanV6TunnelAddress', true],
    ['wireguardTunnelAddress', true],
    ['wireguardV6TunnelAddress', true],
    ['LoadBalancer', false],
    ['', false],
  ])('type %j is a tunnel: %s', (type, want) => {
    expect(isTunnelAllocation({ type })).toBe(want);
  });
});
