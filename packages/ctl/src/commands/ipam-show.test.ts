import { describe, expect, it } from 'vitest';
import { assign, memoryStore } from '../test-support/seed.js';
import { showBorrowed, showConfiguration, showIp, showUtilization } from './ipam-show.js';

async function seeded() {
  const s = memoryStore();
  await s.ipam.pools.create({
    metadata: { name: 'big' },
    spec: { cidr: '10.0.0.0/8', blockSize: 29 },
  });
  await s.ipam.pools.create({
    metadata: { name: 'v6' },
    spec: { cidr: 'fd00:1::/48', blockSize: 122 },
  });
  await s.ipam.reservations.create({
    metadata: { name: 'r' },
    spec: { reservedCIDRs: ['10.0.0.6/31'] },
  });
  await assign(s.ipam, 'n1', 'h1', ['10.0.0.1', '10.0.0.2', '10.0.0.3', '10.0.0.4', '10.0.0.5'], {
    namespace: 'default',
    pod: 'web-0',
  });
  await assign(s.ipam, 'n1', 'h6', ['fd00:1::1']);
  return s;
}

describe('ipam show', () => {
  it('renders pools of a /8 and an IPv6 /48 with %.5g exponents', async () => {
    const { ipam } = await seeded();
    expect((await showUtilization(ipam, { showBlocks: false })).text).toBe(
      [
        '+----------+-------------+------------+------------+--------------+-------------------+',
        '| GROUPING | CIDR        | IPS TOTAL  | IPS IN USE | IPS RESERVED | IPS FREE          |',
        '+----------+-------------+------------+------------+--------------+-------------------+',
        '| IP Pool  | 10.0.0.0/8  | 1.6777e+07 |     5 (0%) |       2 (0%) | 1.6777e+07 (100%) |',
        '| IP Pool  | fd00:1::/48 | 1.2089e+24 |     1 (0%) |       0 (0%) | 1.2089e+24 (100%) |',
        '+----------+-------------+------------+------------+--------------+-------------------+',
        '',
      ].join('\n'),
    );
  });

  it('renders blocks, with 62.5% rounding to 62 and 12.5% to 12', async () => {
    const { ipam } = await seeded();
    expect((await showUtilization(ipam, { showBlocks: true })).text).toBe(
      [
        '+----------+--------------+------------+------------+--------------+-------------------+',
        '| GROUPING | CIDR         | IPS TOTAL  | IPS IN USE | IPS RESERVED | IPS FREE          |',
        '+----------+--------------+------------+------------+--------------+-------------------+',
        '| IP Pool  | 10.0.0.0/8   | 1.6777e+07 |     5 (0%) |       2 (0%) | 1.6777e+07 (100%) |',
        '| Block    | 10.0.0.0/29  |          8 |    5 (62%) |      2 (25%) |           1 (12%) |',
        '| IP Pool  | fd00:1::/48  | 1.2089e+24 |     1 (0%) |       0 (0%) | 1.2089e+24 (100%) |',
        '| Block    | fd00:1::/122 |         64 |     1 (2%) |       0 (0%) |          63 (98%) |',
        '+----------+--------------+------------+------------+--------------+-------------------+',
        '',
      ].join('\n'),
    );
  });

  it('renders orphaned blocks last, without a pool row', async () => {
    const { ipam } = await seeded();
    await ipam.pools.delete('v6');
    const text = (await showUtilization(ipam, { showBlocks: true })).text;
    expect(text.split('\n').slice(3, 6)).toEqual([
      '| IP Pool  | 10.0.0.0/8   | 1.6777e+07 |     5 (0%) |       2 (0%) | 1.6777e+07 (100%) |',
      '| Block    | 10.0.0.0/29  |          8 |    5 (62%) |      2 (25%) |           1 (12%) |',
      '| Block    | fd00:1::/122 |         64 |     1 (2%) |       0 (0%) |          63 (98%) |',
    ]);
  });

  it('renders an empty table when there are no pools', async () => {
    const { ipam } = memoryStore();
    expect((await showUtilization(ipam, { showBlocks: true })).text).toBe(
      [
        '+----------+------+-----------+------------+--------------+----------+',
        '| GROUPING | CIDR | IPS TOTAL | IPS IN USE | IPS RESERVED | IPS FREE |',
        '+----------+------+-----------+------------+--------------+----------+',
        '+----------+------+-----------+------------+--------------+----------+',
        '',
      ].join('\n'),
    );
  });

  it('shows borrowed addresses and counts unclassified ones', async () => {
    const s = await seeded();
    await assign(s.ipam, 'n2', 'h2', ['10.0.0.7'], { namespace: 'ns', pod: 'p2' });
    await s.ipam.assignIp({
      ip: 'fd00:1::2',
      hostname: 'n1',
      handleId: 'x',
      intendedUse: 'Workload',
    });
    const { text, data } = await showBorrowed(s.datastore);
    expect(data).toEqual([
      {
        ip: '10.0.0.7',
        borrowingNode: 'n2',
        block: '10.0.0.0/29',
        blockOwner: 'n1',
        type: 'pod',
        allocatedTo: 'ns/p2',
      },
    ]);
    expect(text).toBe(
      [
        '+----------+----------------+-------------+-------------+------+--------------+',
        '| IP       | BORROWING-NODE | BLOCK       | BLOCK OWNER | TYPE | ALLOCATED-TO |',
        '+----------+----------------+-------------+-------------+------+--------------+',
        '| 10.0.0.7 | n2             | 10.0.0.0/29 | n1          | pod  | ns/p2        |',
        '+----------+----------------+-------------+-------------+------+--------------+',
        '',
        'Note: found 1 IP allocations without an explicit node association. Unable to determine if they are borrowed.',
        '',
      ].join('\n'),
    );
  });

  it('shows the configuration', async () => {
    const { ipam } = memoryStore();
    expect((await showConfiguration(ipam)).text).toBe(
      [
        '+------------------------------+-----------+',
        '| PROPERTY                     | VALUE     |',
        '+------------------------------+-----------+',
        '| StrictAffinity               | false     |',
        '| AutoAllocateBlocks           | true      |',
        '| MaxBlocksPerHost             | 0         |',
        '| KubeVirtVMAddressPersistence | "Enabled" |',
        '| IPCooldownSeconds            | 0         |',
        '+------------------------------+-----------+',
        '',
      ].join('\n'),
    );
  });

  it('shows one address', async () => {
    const { ipam } = await seeded();
    expect((await showIp(ipam, '10.0.0.1')).text).toBe(
      'IP 10.0.0.1 is in use\nHandle ID: h1\nActive Owner Attributes:\n  namespace: default\n  node: n1\n  pod: web-0\n',
    );
    expect((await showIp(ipam, '10.0.0.9')).text).toBe('10.0.0.9 is not assigned\n');
    await expect(showIp(ipam, '10.0.0.300')).rejects.toThrow('invalid IP address');
  });
});
