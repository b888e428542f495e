import { describe, expect, it } from 'vitest';
import type { Datastore } from '@netledger/ipam-core';
import { memoryStore } from '../test-support/seed.js';
import { seedProblems } from '../test-support/seed-problems.js';
import { parseCheckReport, serializeCheckReport } from './check-report.js';
import { setDatastoreLock } from './datastore-lock.js';
import { checkIpam } from './ipam-check.js';
import type { KubeReader } from './kube-reader.js';
import { releaseFromReports } from './ipam-release.js';

const NOW = Date.UTC(2026, 0, 1);
const options = { showAllIps: false, showProblemIps: true, version: 'v0.1.0', nowMs: NOW };

/** Every stored object, as text, to compare before and after. */
async function dump(ds: Datastore): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const kind of [
    'IPPool',
    'Node',
    'IPAMBlock',
    'IPAMHandle',
    'BlockAffinity',
    'IPAMConfig',
  ] as const) {
    for (const kv of (await ds.list({ kind })).items) {
      out.set(
        JSON.stringify(kv.key),
        JSON.stringify(kv.value, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)),
      );
    }
  }
  return out;
}

describe('ipam check', () => {
  it('finds one of each problem, in calicoctl words', async () => {
    const { ipam, datastore } = memoryStore();
    await seedProblems(ipam, datastore);
    const r = await checkIpam(datastore, options);
    expect(r.text).toContain(' IPAM block 10.0.0.0/28 affinity=host:n1:\n');
    expect(r.text).toContain('IPAM blocks record 5 allocations.\n');
    expect(r.text).toContain(
      'Loading all IPAM pools...\n  10.0.0.0/24\nFound 1 active IP pools.\n',
    );
    expect(r.text).toContain('Found 3 node tunnel IPs.\n');
    expect(r.text).toContain(
      '  10.0.0.3 leaked; attrs Main:vxlan-tunnel-addr-gone Extra:node=gone,type=vxlanTunnelAddress\n',
    );
    expect(r.text).toContain('Found 1 IPs that are allocated in IPAM but not actually in use.\n');
    expect(r.text).toContain('  192.168.99.1 in use by Node(n2) is not in any active IP pool.\n');
    expect(r.text).toContain(
      '  10.0.0.200 in use by Node(n3) and in active IPAM pool but has no IPAM allocation.\n',
    );
    expect(r.text).toContain('Found 1 in-use IPs that are not in active IP pools.\n');
    expect(r.text).toContain(
      'Found 1 in-use IPs that are in active IP pools but have no corresponding IPAM allocation.\n',
    );
    expect(r.text).toContain(
      'Found 1 handles with no matching IPs (and 3 handles with matches).\n',
    );
    expect(r.text).toContain("  k8s-pod-network.pod3 is in use in a block but doesn't exist.\n");
    expect(r.text).toContain(
      'Found 1 handles mentioned in blocks with no matching handle resource.\n',
    );
    expect(r.text).toContain(
      '  IPAMBlock BlockKey(cidr=10.0.0.64/28) is invalid: attribute index 0 exists but is not indexed by an allocation\n',
    );
    expect(r.text).toContain('Found 1 invalid IPAMBlocks.\n');
    expect(r.text.endsWith('Check complete; found 5 problems.\n')).toBe(true);
    expect(r.problems).toBe(5);
    expect(r.report.allocations['10.0.0.4']).toMatchObject([{ inUse: false, coolingDown: true }]);
    expect(r.report.allocations['10.0.0.1']).toMatchObject([
      { inUse: true, owners: ['Node(n1)'], node: 'n1' },
    ]);
    expect(r.report.allocations['10.0.0.2']).toMatchObject([
      { inUse: true, pod: 'pod1', namespace: 'default' },
    ]);
    expect(r.report.allocations['10.0.0.3']).toMatchObject([
      { inUse: false, handle: 'vxlan-tunnel-addr-gone', borrowed: true },
    ]);
    expect(r.report.leakedHandles).toMatchObject([{ ID: 'orphan' }]);
  });

  it('writes the report with exact uint64 sequence numbers and reads it back', async () => {
    const { ipam, datastore } = memoryStore();
    await seedProblems(ipam, datastore);
    await setDatastoreLock(datastore, { locked: true, newGuid: () => 'guid-1' });
    const { report } = await checkIpam(datastore, options);
    const text = serializeCheckReport(report);
    const seq = report.allocations['10.0.0.3']![0]!.sequenceNumber!;
    expect(seq > BigInt(Number.MAX_SAFE_INTEGER)).toBe(true);
    expect(text).toContain(`"sequenceNumber": ${seq},`);
    expect(
      text.startsWith(
        '{\n  "version": "v0.1.0",\n  "clusterGUID": "guid-1",\n  "datastoreLocked": true,\n',
      ),
    ).toBe(true);
    expect(text).toContain('"owners": null');
    expect(text).toMatch(
      /"leakedHandles": \[\n {4}\{\n {6}"ID": "orphan",\n {6}"UID": (null|"[^"]*"),\n {6}"Revision": "\d+"\n {4}\}\n {2}\]\n\}$/,
    );
    const parsed = parseCheckReport(text, 'r.json');
    expect(parsed.allocations['10.0.0.3']).toEqual([
      {
        ...report.allocations['10.0.0.3']![0],
        pod: undefined,
        namespace: undefined,
        creationTimestamp: undefined,
      },
    ]);
    expect(parsed.clusterInformationRevision).toBe(report.clusterInformationRevision);
    expect(parseCheckReport(text, 'r.json').allocations['10.0.0.3']![0]!.sequenceNumber).toBe(seq);
  });

  it('feeds release --from-report, which releases exactly the leaks and orphaned handles', async () => {
    const { ipam, datastore } = memoryStore();
    await seedProblems(ipam, datastore);
    await setDatastoreLock(datastore, { locked: true, newGuid: () => 'guid-1' });
    const { report } = await checkIpam(datastore, options);
    const before = await dump(datastore);
    const result = await releaseFromReports(
      { ipam, datastore },
      { reports: [{ source: 'r.json', report }], force: false, version: 'v0.1.0' },
    );
    expect(result.text).toBe(
      [
        'Releasing 1 old IPs...',
        'Released 1 IPs successfully',
        'Deleting 1 handles...',
        "Key: '.' = Deleted OK; 'x' = skip, handle missing/changed.",
        '.',
        'Released 1 handles; 0 skipped; 0 errors.',
        'You may now unlock the data store.',
        '',
      ].join('\n'),
    );
    expect(result.released.map((r) => r.address)).toEqual(['10.0.0.3']);
    expect(result.deletedHandles).toEqual(['orphan']);
    const after = await dump(datastore);
    const changed = [...new Set([...before.keys(), ...after.keys()])].filter(
      (k) => before.get(k) !== after.get(k),
    );
    expect(changed.sort()).toEqual(
      [
        '{"kind":"IPAMBlock","cidr":"10.0.0.0/28"}',
        '{"kind":"IPAMHandle","handleId":"orphan"}',
        '{"kind":"IPAMHandle","handleId":"vxlan-tunnel-addr-gone"}',
      ].sort(),
    );
    // The block changed only at 10.0.0.3 (now cooling down); everything else is as it was.
    const again = await checkIpam(datastore, options);
    expect(again.report.allocations['10.0.0.3']).toMatchObject([{ coolingDown: true }]);
    for (const ip of ['10.0.0.1', '10.0.0.2', '10.0.0.4', '10.0.0.5']) {
      expect(again.report.allocations[ip]).toEqual(report.allocations[ip]);
    }
    expect(again.problems).toBe(3);
  });

  it('refuses unsafe releases and changes nothing', async () => {
    const { ipam, datastore } = memoryStore();
    await seedProblems(ipam, datastore);
    const release = (r: typeof report, force = false, version = 'v0.1.0') =>
      releaseFromReports(
        { ipam, datastore },
        { reports: [{ source: 'r.json', report: r }], force, version },
      );
    let { report } = await checkIpam(datastore, options);
    const before = await dump(datastore);
    await expect(release(report)).rejects.toThrow(
      'data store is not locked. Either lock the data store, or re-run with --force',
    );
    await setDatastoreLock(datastore, { locked: true, newGuid: () => 'guid-1' });
    await expect(release(report)).rejects.toThrow('mismatched cluster GUID. Refusing to release');
    report = (await checkIpam(datastore, options)).report;
    await expect(release({ ...report, clusterGUID: 'other' })).rejects.toThrow(
      'mismatched cluster GUID',
    );
    await expect(release(report, false, 'v9')).rejects.toThrow(
      'was produced using a different version (v0.1.0) of netledgerctl. Refusing to release',
    );
    await setDatastoreLock(datastore, { locked: true });
    await expect(release(report)).rejects.toThrow('the provided reports are all stale');
    await expect(release(report, true)).rejects.toThrow('the provided reports are all stale');
    const changed = [...(await dump(datastore))].filter(([k, v]) => before.get(k) !== v);
    expect(changed).toEqual([]);
  });

  it('skips an address reallocated since the report (sequence number)', async () => {
    const { ipam, datastore } = memoryStore();
    await seedProblems(ipam, datastore);
    await ipam.setIpamConfig({ ...(await ipam.getIpamConfig()), ipCooldownSeconds: 0 });
    await setDatastoreLock(datastore, { locked: true, newGuid: () => 'g' });
    const { report } = await checkIpam(datastore, options);
    await ipam.releaseIps([{ address: '10.0.0.3' }]);
    await ipam.assignIp({
      ip: '10.0.0.3',
      hostname: 'n1',
      handleId: 'new',
      intendedUse: 'Workload',
    });
    const r = await releaseFromReports(
      { ipam, datastore },
      { reports: [{ source: 'r', report }], force: true, version: 'v0.1.0' },
    );
    expect(r.exitCode).toBe(1);
    expect(r.text).toContain('An error occurred while releasing some IPs');
    expect(await ipam.ipsByHandle('new')).toEqual(['10.0.0.3']);
  });
});

describe('ipam check: LoadBalancer Services', () => {
  /** A Kubernetes API with a KubeControllersConfiguration (or none) and these Services. */
  const kubernetes = (kcc: object | undefined, services: object[]): KubeReader => ({
    async get(path) {
      if (path.startsWith('/apis/crd.projectcalico.org/v1/kubecontrollersconfigurations/'))
        return kcc as Record<string, unknown> | undefined;
      if (path.startsWith('/api/v1/services?limit=500')) {
        // Two pages, as a large cluster would answer.
        const second = path.includes('continue=p2');
        return {
          items: second ? services.slice(1) : services.slice(0, 1),
          metadata: second ? {} : { continue: 'p2' },
        };
      }
      throw new Error(`unexpected GET ${path}`);
    },
  });
  const lbService = (name: string, ip: string, extra: object = {}) => ({
    metadata: { name, namespace: 'default', uid: name },
    spec: { type: 'LoadBalancer', ...extra },
    status: { loadBalancer: { ingress: [{ ip, ipMode: 'VIP' }] } },
  });

  async function seed() {
    const { ipam, datastore } = memoryStore();
    await ipam.pools.create({
      metadata: { name: 'lb' },
      spec: { cidr: '10.99.0.0/24', allowedUses: ['LoadBalancer'] },
    });
    for (const [ip, service] of [
      ['10.99.0.1', 'web'],
      ['10.99.0.2', 'db'],
    ] as const)
      await ipam.assignIp({
        ip,
        hostname: 'load-balancer',
        handleId: `lb-${service}`,
        attrs: { service, namespace: 'default', type: 'LoadBalancer' },
        intendedUse: 'LoadBalancer',
      });
    return datastore;
  }

  it("counts the managed Services' ingress addresses as in use once the controller is configured", async () => {
    const datastore = await seed();
    const kcc = { spec: { controllers: { loadBalancer: { assignIPs: 'AllServices' } } } };
    const r = await checkIpam(datastore, {
      ...options,
      showAllIps: true,
      kubernetes: kubernetes(kcc, [
        lbService('web', '10.99.0.1'),
        lbService('db', '10.99.0.2'),
        lbService('other', '192.0.2.9', { loadBalancerClass: 'example.com/lb' }),
      ]),
    });
    expect(r.text).toContain(
      'Loading all service load balancer IPs.\n  10.99.0.1 belongs to web\n  10.99.0.2 belongs to db\nFound 2 service load balancer(s).\n\n',
    );
    expect(r.text).not.toContain('No configuration for LoadBalancer kubecontroller found');
    expect(r.text).toContain('Found 0 IPs that are allocated in IPAM but not actually in use.\n');
    expect(r.problems).toBe(0);
    expect(r.report.allocations['10.99.0.1']).toMatchObject([{ inUse: true, owners: ['web'] }]);
  });

  it('counts only the requested Services with RequestedServicesOnly, and reports the rest leaked', async () => {
    const datastore = await seed();
    const kcc = { spec: { controllers: { loadBalancer: { assignIPs: 'RequestedServicesOnly' } } } };
    const r = await checkIpam(datastore, {
      ...options,
      kubernetes: kubernetes(kcc, [
        lbService('web', '10.99.0.1', { loadBalancerIP: '10.99.0.1' }),
        lbService('db', '10.99.0.2'),
      ]),
    });
    expect(r.text).toContain('Found 1 service load balancer(s).\n');
    expect(r.text).toContain(
      '  10.99.0.2 leaked; attrs Main:lb-db Extra:namespace=default,service=db,type=LoadBalancer\n',
    );
    expect(r.problems).toBe(1);
  });

  it.each([
    ['no Kubernetes API', undefined],
    ['no KubeControllersConfiguration', kubernetes(undefined, [])],
    [
      'one without controllers.loadBalancer',
      kubernetes({ spec: { controllers: { node: {} } } }, []),
    ],
  ])('skips the service check with %s, as calicoctl', async (_what, kube) => {
    const datastore = await seed();
    const r = await checkIpam(datastore, { ...options, ...(kube && { kubernetes: kube }) });
    expect(r.text).toContain(
      'Loading all service load balancer IPs.\nNo configuration for LoadBalancer kubecontroller found, skipping service check\n\n',
    );
  });
});
