import { describe, expect, it } from 'vitest';
import { podReportsAddress, slimPod } from './slim-pod.js';

const raw = (extra: { annotations?: Record<string, string>; status?: object } = {}) => ({
  metadata: {
    name: 'p',
    namespace: 'ns',
    uid: 'u1',
    resourceVersion: '7',
    annotations: extra.annotations,
    labels: { big: 'x'.repeat(1000) },
  },
  spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'i' }] },
  status: {
    phase: 'Running',
    podIP: '10.0.0.5',
    podIPs: [{ ip: '10.0.0.5' }, { ip: 'fd00::5' }],
    ...extra.status,
  },
});

describe('slimPod', () => {
  it('keeps only what the GC reads', () => {
    expect(slimPod(raw())).toEqual({
      metadata: { name: 'p', namespace: 'ns', uid: 'u1', resourceVersion: '7' },
      nodeName: 'n1',
      podIp: '10.0.0.5',
      podIps: ['10.0.0.5', 'fd00::5'],
      phase: 'Running',
      reason: '',
      endpointIps: ['10.0.0.5', 'fd00::5'],
    });
  });

  it("adds Calico's annotations and every Multus network's addresses", () => {
    const p = slimPod(
      raw({
        annotations: {
          'cni.projectcalico.org/podIPs': '10.0.0.5/32,10.1.0.9/32',
          'k8s.v1.cni.cncf.io/network-status': JSON.stringify([
            { name: 'net1', ips: ['192.168.5.5'] },
          ]),
        },
      }),
    );
    expect(p.endpointIps).toEqual([
      '10.0.0.5',
      'fd00::5',
      '10.0.0.5/32',
      '10.1.0.9/32',
      '192.168.5.5',
    ]);
  });

  it('reads an unreadable network-status as unknown (null: the predicate then keeps the address)', () => {
    expect(
      slimPod(raw({ annotations: { 'k8s.v1.cni.cncf.io/network-status': '{oops' } })).endpointIps,
    ).toBeNull();
  });

  it('tolerates missing fields', () => {
    expect(slimPod({})).toMatchObject({
      metadata: { name: '', uid: '' },
      nodeName: '',
      podIps: [],
      endpointIps: [],
    });
  });
});

describe('podReportsAddress', () => {
  it.each([
    ['10.0.0.5', true],
    ['fd00:0:0::5', true],
    ['10.1.0.9', true],
    ['10.0.0.6', false],
    ['not-an-ip', false],
  ])('%s -> %s', (ip, expected) => {
    const p = slimPod(raw({ annotations: { 'cni.projectcalico.org/podIPs': '10.1.0.9/32' } }));
    expect(podReportsAddress(p, ip)).toBe(expected);
  });

  it('is false for an evicted pod', () => {
    expect(
      podReportsAddress(
        slimPod(raw({ status: { phase: 'Failed', reason: 'Evicted' } })),
        '10.0.0.5',
      ),
    ).toBe(false);
  });
});
