import { describe, expect, it } from 'vitest';
import { netledgerTestResources, TEST_LEAK_GRACE_PERIOD } from './netledger-test-resources.js';

describe('netledgerTestResources', () => {
  it("makes the pool install-cni's settings name, and the GC's short grace period in Calico's resource", () => {
    expect(
      netledgerTestResources({ ipv4Pools: ' default-ipv4-ippool ', cidr: '10.244.0.0/16' }),
    ).toEqual([
      expect.objectContaining({
        kind: 'IPPool',
        metadata: { name: 'default-ipv4-ippool' },
        spec: expect.objectContaining({ cidr: '10.244.0.0/16', nodeSelector: 'all()' }),
      }),
      {
        apiVersion: 'crd.projectcalico.org/v1',
        kind: 'KubeControllersConfiguration',
        metadata: { name: 'default' },
        spec: { controllers: { node: { leakGracePeriod: TEST_LEAK_GRACE_PERIOD } } },
      },
    ]);
  });

  it.each([undefined, '', 'a,b', '10.0.0.0/16'])('refuses NETLEDGER_IPV4_POOLS %j', (pools) => {
    expect(() => netledgerTestResources({ ipv4Pools: pools, cidr: '10.244.0.0/16' })).toThrow(
      expect.objectContaining({
        code: 'START_FAILED',
        message: expect.stringContaining('NETLEDGER_IPV4_POOLS'),
      }),
    );
  });
});
