import { describe, expect, it } from 'vitest';
import { LOAD_BALANCER_CLASS, isManagedLoadBalancer } from './is-managed-load-balancer.js';
import { loadBalancerControllerOf } from './load-balancer-controller-of.js';
import { SERVICE_ANNOTATIONS, slimService } from './slim-service.js';

describe('slimService', () => {
  it('keeps the fields and annotations the controller reads, and the ingress entries whole', () => {
    const s = slimService({
      metadata: {
        name: 'web',
        namespace: 'ns',
        uid: 'u1',
        resourceVersion: '7',
        creationTimestamp: new Date('2026-01-01T00:00:00Z'),
        annotations: { [SERVICE_ANNOTATIONS.sharingKey]: 'k', 'kubectl.kubernetes.io/x': 'big' },
      },
      spec: {
        type: 'LoadBalancer',
        ipFamilies: ['IPv4'],
        ipFamilyPolicy: 'SingleStack',
        ports: [{ port: 80 }, { port: 53, protocol: 'UDP' }],
      },
      status: { loadBalancer: { ingress: [{ ip: '10.0.0.1', ipMode: 'VIP' }, { hostname: 'h' }] } },
    });
    expect(s).toEqual({
      metadata: {
        name: 'web',
        namespace: 'ns',
        uid: 'u1',
        resourceVersion: '7',
        creationTimestamp: '2026-01-01T00:00:00.000Z',
        annotations: { [SERVICE_ANNOTATIONS.sharingKey]: 'k' },
      },
      type: 'LoadBalancer',
      loadBalancerClass: undefined,
      loadBalancerIp: '',
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
      ports: [
        { protocol: 'TCP', port: 80 },
        { protocol: 'UDP', port: 53 },
      ],
      ingress: [{ ip: '10.0.0.1', ipMode: 'VIP' }, { hostname: 'h' }],
    });
  });

  it('reads a Service without a spec as an empty ClusterIP Service', () => {
    expect(slimService({ metadata: { name: 'x' } })).toMatchObject({
      metadata: { name: 'x', namespace: '', annotations: {} },
      type: 'ClusterIP',
      ports: [],
      ingress: [],
    });
  });
});

/** A Service as the API returns it: type LoadBalancer unless said otherwise. */
const service = (spec: Record<string, unknown>, annotations: Record<string, string> = {}) =>
  slimService({
    metadata: { name: 's', namespace: 'default', uid: 'u', annotations },
    spec: { type: 'LoadBalancer', ...spec },
  });

describe('isManagedLoadBalancer', () => {
  it.each<[string, ReturnType<typeof service>, boolean, boolean]>([
    ['a LoadBalancer without class', service({}), true, false],
    ['a ClusterIP Service', service({ type: 'ClusterIP' }), false, false],
    ['another class', service({ loadBalancerClass: 'example.com/lb' }), false, false],
    ['our class', service({ loadBalancerClass: LOAD_BALANCER_CLASS }), true, true],
    ['a pool annotation', service({}, { [SERVICE_ANNOTATIONS.ipv4Pools]: '["a"]' }), true, true],
    ['spec.loadBalancerIP', service({ loadBalancerIP: '10.0.0.1' }), true, true],
    ['a sharing key', service({}, { [SERVICE_ANNOTATIONS.sharingKey]: 'k' }), true, true],
    ['an empty annotation', service({}, { [SERVICE_ANNOTATIONS.ipv6Pools]: '' }), true, false],
  ])('%s: AllServices %s, RequestedServicesOnly %s', (_what, s, all, requested) => {
    expect(isManagedLoadBalancer(s, 'AllServices')).toBe(all);
    expect(isManagedLoadBalancer(s, 'RequestedServicesOnly')).toBe(requested);
  });
});

describe('loadBalancerControllerOf', () => {
  it.each([
    [{}, undefined],
    [null, undefined],
    [{ controllers: { node: {} } }, undefined],
    [{ controllers: { loadBalancer: null } }, undefined],
    [{ controllers: { loadBalancer: {} } }, { assignIps: 'AllServices' }],
    [
      { controllers: { loadBalancer: { assignIPs: 'RequestedServicesOnly' } } },
      { assignIps: 'RequestedServicesOnly' },
    ],
  ])('loadBalancerControllerOf(%j) is %j', (spec, want) => {
    expect(loadBalancerControllerOf(spec)).toEqual(want);
  });

  it.each([
    [
      { controllers: { loadBalancer: { assignIPs: 'Some' } } },
      'spec.controllers.loadBalancer.assignIPs must be AllServices or RequestedServicesOnly, got "Some"',
    ],
    [{ controllers: { loadBalancer: 'on' } }, 'spec.controllers.loadBalancer must be an object'],
  ])('refuses %j, naming the field', (spec, message) => {
    expect(() => loadBalancerControllerOf(spec)).toThrow(new TypeError(message));
  });
});
