import { describe, expect, it } from 'vitest';
import { memoryStore } from '../test-support/seed.js';
import { setDatastoreLock } from './datastore-lock.js';
import { splitPool } from './ipam-split.js';

describe('ipam split', () => {
  it('splits a pool into N children keeping its blocks and allocations', async () => {
    const { ipam, datastore } = memoryStore();
    await ipam.pools.create({
      metadata: { name: 'p' },
      spec: { cidr: '10.0.0.0/24', blockSize: 28 },
    });
    await ipam.nodes.create({ metadata: { name: 'n1' } });
    await ipam.assignIp({
      ip: '10.0.0.130',
      hostname: 'n1',
      handleId: 'h',
      intendedUse: 'Workload',
    });
    await expect(
      splitPool({ ipam, datastore }, { parts: '4', name: 'p', nowMs: 0 }),
    ).rejects.toThrow('datastore is not locked');
    await setDatastoreLock(datastore, { locked: true });
    await expect(
      splitPool({ ipam, datastore }, { parts: '3', name: 'p', nowMs: 0 }),
    ).rejects.toThrow('power of 2');
    await expect(
      splitPool({ ipam, datastore }, { parts: '32', name: 'p', nowMs: 0 }),
    ).rejects.toThrow('smaller than a block');
    await expect(splitPool({ ipam, datastore }, { parts: '2', nowMs: 0 })).rejects.toThrow(
      'no name or CIDR provided',
    );
    const out = await splitPool({ ipam, datastore }, { parts: '4', cidr: '10.0.0.0/24', nowMs: 0 });
    expect(out.text).toBe(
      'IP Pool p was successfully split into 4 smaller pools.\n' +
        'Created split-p-0 with CIDR 10.0.0.0/26.\nCreated split-p-1 with CIDR 10.0.0.64/26.\n' +
        'Created split-p-2 with CIDR 10.0.0.128/26.\nCreated split-p-3 with CIDR 10.0.0.192/26.\n' +
        'Please refer to the documentation for final steps.\n',
    );
    const pools = await ipam.pools.list();
    expect(
      pools.map((p) => [p.metadata.name, p.spec.cidr, p.spec.blockSize, p.spec.disabled]),
    ).toEqual([
      ['split-p-0', '10.0.0.0/26', 28, false],
      ['split-p-1', '10.0.0.64/26', 28, false],
      ['split-p-2', '10.0.0.128/26', 28, false],
      ['split-p-3', '10.0.0.192/26', 28, false],
    ]);
    expect(await ipam.ipsByHandle('h')).toEqual(['10.0.0.130']);
    const affinities = await datastore.list({ kind: 'BlockAffinity' });
    expect(affinities.items.map((a) => a.key.cidr)).toEqual(['10.0.0.128/28']);
  });
});
