import type { DatastoreKey } from '@netledger/ipam-core';
import { BlockBuilder } from '@netledger/testkit';
import { describe, expect, it } from 'vitest';
import type { CalicoApiGroup } from './calico-api-group.js';
import { crdGroup } from './calico-api-group.js';
import { crdPath, decodeCrd, describeObject, encodeCrd } from './crd-kinds.js';

const block = { kind: 'IPAMBlock', cidr: '10.0.0.0/30' } as const;
const affinity = {
  kind: 'BlockAffinity',
  host: 'n1',
  cidr: '10.0.0.0/30',
  affinityType: 'host',
} as const;
const handle = { kind: 'IPAMHandle', handleId: 'Pod.A' } as const;
const config = { kind: 'IPAMConfig' } as const;

/** Each IPAM kind as netledger writes it in `group`. */
function ipamObjects(group: CalicoApiGroup) {
  const g = crdGroup(group);
  return [
    encodeCrd(g, block, new BlockBuilder('10.0.0.0/30').build()),
    encodeCrd(g, affinity, { state: 'confirmed', deleted: true }),
    encodeCrd(g, handle, { handleId: 'Pod.A', block: {}, deleted: false }),
    encodeCrd(g, config, {
      strictAffinity: false,
      autoAllocateBlocks: true,
      maxBlocksPerHost: 0,
      ipCooldownSeconds: 0,
    }),
  ];
}

describe('Calico objects per API group', () => {
  it('writes the IPAM objects of crd.projectcalico.org/v1 with projectcalico.org/metadata "{}", as Calico does', () => {
    const objects = ipamObjects('crd.projectcalico.org/v1');
    for (const o of objects) {
      expect(o).toMatchObject({
        apiVersion: 'crd.projectcalico.org/v1',
        metadata: { annotations: { 'projectcalico.org/metadata': '{}' } },
      });
      expect(Object.keys((o.metadata as { annotations: object }).annotations)).toEqual([
        'projectcalico.org/metadata',
      ]);
    }
    expect(objects.map((o) => o.kind)).toEqual([
      'IPAMBlock',
      'BlockAffinity',
      'IPAMHandle',
      'IPAMConfig',
    ]);
    expect(objects[1]).toMatchObject({ spec: { deleted: 'true' } });
  });

  it('writes those of projectcalico.org/v3 with no annotation, the config as IPAMConfiguration', () => {
    const objects = ipamObjects('projectcalico.org/v3');
    for (const o of objects) {
      expect(o.apiVersion).toBe('projectcalico.org/v3');
      expect(o.metadata).not.toHaveProperty('annotations');
    }
    expect(objects[3]).toMatchObject({ kind: 'IPAMConfiguration', metadata: { name: 'default' } });
    expect(objects[1]).toMatchObject({
      spec: { deleted: true },
      metadata: { labels: { 'projectcalico.org/affinity-type': 'host' } },
    });
    // Read back as written, whichever group: v3's boolean `deleted` included.
    const keys: DatastoreKey[] = [block, affinity, handle, config];
    objects.forEach((o, i) => {
      expect(decodeCrd(keys[i]!.kind as never, o)?.key).toEqual(keys[i]);
    });
    expect(decodeCrd('BlockAffinity', objects[1]!)?.value).toEqual({
      state: 'confirmed',
      deleted: true,
    });
  });

  it("writes no annotation on a resource's own metadata, in either group", () => {
    for (const group of ['crd.projectcalico.org/v1', 'projectcalico.org/v3'] as const) {
      const pool = encodeCrd(
        crdGroup(group),
        { kind: 'IPPool', name: 'p' },
        { metadata: { name: 'p' }, spec: { cidr: '10.0.0.0/24' } },
      );
      expect(pool).toEqual({
        apiVersion: group,
        kind: 'IPPool',
        metadata: { name: 'p' },
        spec: { cidr: '10.0.0.0/24' },
      });
    }
  });

  it.each([
    [
      'crd.projectcalico.org/v1',
      '/apis/crd.projectcalico.org/v1/ipamconfigs/default',
      'ipamconfigs',
    ],
    [
      'projectcalico.org/v3',
      '/apis/projectcalico.org/v3/ipamconfigurations/default',
      'ipamconfigurations',
    ],
  ] as const)('%s: the IPAM config is at %s', (group, path, plural) => {
    expect(crdPath(crdGroup(group), 'IPAMConfig', 'default')).toBe(path);
    expect(describeObject(crdGroup(group), config)).toBe(`${plural}/default`);
    expect(crdPath(crdGroup(group), 'IPAMBlock')).toBe(`/apis/${group}/ipamblocks`);
  });
});
