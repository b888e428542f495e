import { describe, expect, it } from 'vitest';
import { chooseCalicoApiGroup, crdGroup, parseCalicoApiGroup } from './calico-api-group.js';

describe("Calico's API groups", () => {
  // libcalico-go lib/backend/k8s/discovery.go, UsingV3CRDs: `v3present && !v1present`.
  it.each([
    [['apps', 'crd.projectcalico.org'], 'crd.projectcalico.org/v1'],
    [['apps', 'projectcalico.org'], 'projectcalico.org/v3'],
    // The aggregated API server serves projectcalico.org on top of the v1 CRDs.
    [['projectcalico.org', 'crd.projectcalico.org'], 'crd.projectcalico.org/v1'],
    [['apps', 'batch'], 'crd.projectcalico.org/v1'],
    [[], 'crd.projectcalico.org/v1'],
  ] as const)('served %j: %s', (served, group) => {
    expect(chooseCalicoApiGroup(served)).toBe(group);
  });

  it.each([
    ['projectcalico.org/v3', 'projectcalico.org/v3'],
    ['ProjectCalico.org/V3', 'projectcalico.org/v3'],
    ['crd.projectcalico.org/v1', 'crd.projectcalico.org/v1'],
    ['projectcalico.org', undefined],
    ['crd.projectcalico.org/v3', undefined],
    ['', undefined],
  ])('parses %j as %s', (text, group) => {
    expect(parseCalicoApiGroup(text)).toBe(group);
  });

  it('names the IPAM config IPAMConfiguration in v3, and encodes an affinity deleted per group', () => {
    const v1 = crdGroup('crd.projectcalico.org/v1');
    const v3 = crdGroup('projectcalico.org/v3');
    expect(v1.names.IPAMConfig).toEqual({ crdKind: 'IPAMConfig', plural: 'ipamconfigs' });
    expect(v3.names.IPAMConfig).toEqual({
      crdKind: 'IPAMConfiguration',
      plural: 'ipamconfigurations',
    });
    expect(v3.names.IPAMBlock).toEqual(v1.names.IPAMBlock);
    expect([v1.affinityDeleted(true), v1.affinityDeleted(false)]).toEqual(['true', 'false']);
    expect([v3.affinityDeleted(true), v3.affinityDeleted(false)]).toEqual([true, false]);
  });
});
