import { IpamError, isIpamError } from '@netledger/ipam-core';
import type { Datastore } from '@netledger/ipam-core';
import { forwardingDatastore } from '@netledger/ipam-core/adapter';
import { describe, expect, it } from 'vitest';
import { memoryStore } from '../test-support/seed.js';
import { dumpStore } from '../test-support/dump-store.js';
import { seedMigration } from '../test-support/seed-migration.js';
import { setDatastoreLock } from './datastore-lock.js';
import {
  exportDatastore,
  importDatastore,
  parseExport,
  renameHandle,
} from './datastore-migrate.js';

const renames = new Map([['old-1', 'new-1']]);

/** What the source dump should look like after renaming old-1 to new-1. */
function renamedDump(dump: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(dump)) {
    out[k.replace('/old-1', '/new-1').replace('tunnel-addr-old-1', 'tunnel-addr-new-1')] = v
      .replaceAll('"host:old-1"', '"host:new-1"')
      .replaceAll('"node":"old-1"', '"node":"new-1"')
      .replaceAll('tunnel-addr-old-1', 'tunnel-addr-new-1')
      .replaceAll('"name":"old-1"', '"name":"new-1"');
  }
  return out;
}

describe('datastore migrate', () => {
  it('renames tunnel handles of every prefix, v6 included', () => {
    expect(renameHandle('vxlan-v6-tunnel-addr-old-1', renames)).toBe('vxlan-v6-tunnel-addr-new-1');
    expect(renameHandle('wireguard-v6-tunnel-addr-old-1', renames)).toBe(
      'wireguard-v6-tunnel-addr-new-1',
    );
    expect(renameHandle('ipip-tunnel-addr-old-1', renames)).toBe('ipip-tunnel-addr-new-1');
    expect(renameHandle('ipip-tunnel-addr-other', renames)).toBe('ipip-tunnel-addr-other');
    expect(renameHandle('k8s-pod-network.old-1', renames)).toBe('k8s-pod-network.old-1');
  });

  it('round-trips every IPAM object with a node rename', async () => {
    const src = memoryStore();
    await seedMigration(src.ipam, src.datastore);
    await setDatastoreLock(src.datastore, { locked: true, newGuid: () => 'guid-src' });
    const exported = await exportDatastore(src.datastore, { renames });
    expect(exported.text).toContain('===\n{\n  "block_affinities": [\n');
    expect(exported.text).toContain('"Key": "/calico/ipam/v2/host/new-1/ipv6/block/');
    const dst = memoryStore();
    const out = await importDatastore(dst.datastore, parseExport(exported.text, 'export'));
    expect(out.text).toContain('Successfully applied');
    const before = await dumpStore(src.datastore);
    const after = await dumpStore(dst.datastore);
    expect(Object.keys(before).length).toBeGreaterThan(12);
    expect(after).toEqual(renamedDump(before));
    expect(JSON.stringify(after)).not.toContain('old-1');
    const ci = await dst.datastore.get({ kind: 'ClusterInformation', name: 'default' });
    expect(ci.value.spec).toMatchObject({ clusterGUID: 'guid-src', datastoreReady: false });
    // The imported data is a working IPAM: the renamed node keeps its handles.
    expect(await dst.ipam.ipsByHandle('vxlan-v6-tunnel-addr-new-1')).toHaveLength(1);
    expect(await dst.ipam.ipsByHandle('k8s-pod-network.abc')).toHaveLength(2);
  });

  it('exports a missing IPAM config as null, and fails on a store that cannot read it', async () => {
    const src = memoryStore();
    await seedMigration(src.ipam, src.datastore);
    await src.datastore.delete({ kind: 'IPAMConfig' }).catch((e: unknown) => {
      if (!isIpamError(e, 'DoesNotExist')) throw e;
    });
    expect((await exportDatastore(src.datastore)).text).toContain('"config": null');
    const unreadable: Datastore = {
      ...forwardingDatastore(src.datastore),
      get: (key) =>
        key.kind === 'IPAMConfig'
          ? Promise.reject(new IpamError('Unavailable', 'etcd unavailable'))
          : src.datastore.get(key),
    };
    await expect(exportDatastore(unreadable)).rejects.toMatchObject({
      code: 'Unavailable',
      message: 'etcd unavailable',
    });
  });

  it('refuses to import into a non-empty datastore or from a bad file, writing nothing', async () => {
    const src = memoryStore();
    await seedMigration(src.ipam, src.datastore);
    const text = (await exportDatastore(src.datastore)).text;
    await expect(importDatastore(src.datastore, parseExport(text, 'f'))).rejects.toThrow(
      'not empty',
    );
    expect(() => parseExport('kind: IPPool\n', 'f')).toThrow('no IPAM resources specified in file');
    expect(() => parseExport(text.replace('"blocks": [', '"blocks": [ 7,'), 'f')).toThrow(
      'f: blocks[0]: expected {Key, Value, TTL}',
    );
    expect(() =>
      parseExport(text.replace('/calico/ipam/v2/handle/', '/calico/ipam/v2/hendle/'), 'f'),
    ).toThrow('unexpected key');
    expect(() =>
      parseExport(text.replace('"allocations": [', '"allocations": 5, "x": ['), 'f'),
    ).toThrow(/f: blocks\[\d\]/);
  });
});
