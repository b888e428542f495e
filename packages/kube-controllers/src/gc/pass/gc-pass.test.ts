import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGcHarness, isAllocated, MINUTE, pod } from './test-gc-harness.js';
import type { GcHarness } from './test-gc-harness.js';

let h: GcHarness;

beforeEach(async () => {
  h = await createGcHarness();
  await h.ipam.pools.create({
    metadata: { name: 'default' },
    spec: { cidr: '10.0.0.0/24', blockSize: 28 },
  });
  h.nodes.add('node-a').add('node-b');
});

afterEach(async () => {
  await h.ds.close();
});

describe('leaked pod addresses', () => {
  it('reclaims the address of a pod deleted behind the CNI plugin after the grace period, not before', async () => {
    const [ip] = await h.assign({ node: 'node-a', name: 'web' });
    h.addPod(pod({ name: 'web', node: 'node-a', ips: [ip!] }));
    expect(await h.pass()).toMatchObject({ candidates: 0, released: 0 });
    h.deletePod('web');
    const first = await h.pass();
    expect(first).toMatchObject({ candidates: 1, released: 0 });
    expect(first.nextDeadlineMs).toBe(h.clock.now() + 15 * MINUTE + 1);
    h.clock.advance(15 * MINUTE); // exactly the grace period: still a candidate
    expect(await h.pass()).toMatchObject({ candidates: 1, released: 0 });
    expect(await isAllocated(h.ipam, ip!)).toBe(true);
    h.clock.advance(1);
    expect(await h.pass()).toMatchObject({ released: 1 });
    expect(await isAllocated(h.ipam, ip!)).toBe(false);
    expect(h.reclaimed).toEqual([ip]);
    expect(h.logs.find((l) => l.msg === 'released leaked address')?.fields).toMatchObject({
      ip,
      handle: 'k8s-pod-network.web',
      node: 'node-a',
      namespace: 'default',
      pod: 'web',
      reason: 'grace-period-elapsed',
    });
    expect(h.state.allocations.size).toBe(0);
  });

  it('forgets a candidate whose pod comes back before the grace period ends', async () => {
    const [ip] = await h.assign({ node: 'node-a', name: 'web' });
    await h.pass();
    h.clock.advance(10 * MINUTE);
    h.addPod(pod({ name: 'web', node: 'node-a', ips: [ip!] }));
    expect(await h.pass()).toMatchObject({ candidates: 0 });
    h.deletePod('web');
    expect(await h.pass()).toMatchObject({ candidates: 1 });
    h.clock.advance(10 * MINUTE); // 20 min after the first sighting, 10 after the second
    expect(await h.pass()).toMatchObject({ released: 0, candidates: 1 });
  });

  it('only reports with a grace period of 0', async () => {
    h.settings = { ...h.settings, leakGracePeriodMs: 0 };
    const [ip] = await h.assign({ node: 'node-a', name: 'web' });
    await h.pass();
    h.clock.advance(24 * 60 * MINUTE);
    expect(await h.pass()).toMatchObject({ candidates: 1, released: 0 });
    expect(await isAllocated(h.ipam, ip!)).toBe(true);
  });

  it('never releases a live pod whose allocation names a stale node (calico#12257)', async () => {
    const [ip] = await h.assign({ node: 'node-a', name: 'vm-pod' });
    // The pod runs on node-b and reports the address; the allocation still says node-a.
    h.addPod(pod({ name: 'vm-pod', node: 'node-b', ips: [ip!] }));
    await h.pass();
    h.clock.advance(60 * MINUTE);
    expect(await h.pass()).toMatchObject({ candidates: 0, released: 0 });
    expect(await isAllocated(h.ipam, ip!)).toBe(true);
  });

  it('releases the old address of a pod re-created on another node with a new address', async () => {
    const [ip] = await h.assign({ node: 'node-a', name: 'db-0' });
    h.addPod(pod({ name: 'db-0', node: 'node-b', ips: ['10.0.0.200'], uid: 'second' }));
    await h.pass();
    h.clock.advance(15 * MINUTE + 1);
    expect(await h.pass()).toMatchObject({ released: 1 });
    expect(await isAllocated(h.ipam, ip!)).toBe(false);
  });

  it('keeps every address of a handle while one of them is valid (all or none per handle)', async () => {
    await h.ipam.pools.create({
      metadata: { name: 'v6' },
      spec: { cidr: 'fd00::/120', blockSize: 124 },
    });
    const [v4, v6] = await h.assign({ node: 'node-a', name: 'dual', num6: 1 });
    // The pod reports only its IPv4 address: the IPv6 one is a leak candidate, the handle is held.
    h.addPod(pod({ name: 'dual', node: 'node-a', ips: [v4!] }));
    await h.pass();
    h.clock.advance(16 * MINUTE);
    const r = await h.pass();
    expect(r).toMatchObject({ released: 0, confirmed: 1 });
    expect(await isAllocated(h.ipam, v4!)).toBe(true);
    expect(await isAllocated(h.ipam, v6!)).toBe(true);
    h.deletePod('dual');
    await h.pass();
    h.clock.advance(16 * MINUTE);
    expect(await h.pass()).toMatchObject({ released: 2 });
  });

  it('does not release an address re-used by a new pod between the scan and the release', async () => {
    const [ip] = await h.assign({ node: 'node-a', name: 'old' });
    await h.pass();
    h.clock.advance(15 * MINUTE + 1);
    // The final re-validation asks the API for the old pod; meanwhile the CNI plugin releases the
    // address and hands it to a new pod (same address, new handle, new sequence number).
    h.onLivePod = async (_ns, name) => {
      if (name !== 'old') return;
      h.onLivePod = undefined;
      await h.ipam.releaseByHandle('k8s-pod-network.old');
      await h.ipam.assignIp({
        ip: ip!,
        hostname: 'node-a',
        handleId: 'k8s-pod-network.new',
        attrs: { namespace: 'default', pod: 'new', node: 'node-a' },
      });
      h.addPod(pod({ name: 'new', node: 'node-a', ips: [ip!] }));
    };
    const r = await h.pass();
    expect(r).toMatchObject({ released: 0 });
    expect((await h.ipam.getAssignmentAttributes(ip!)).handleId).toBe('k8s-pod-network.new');
    expect(
      h.logs.some((l) => l.msg.startsWith('not released: an address changed since the scan')),
    ).toBe(true);
    // The new pod's address is valid from the next scan on.
    h.clock.advance(60 * MINUTE);
    expect(await h.pass()).toMatchObject({ candidates: 0, released: 0 });
    expect(await isAllocated(h.ipam, ip!)).toBe(true);
  });

  it('does not release when the pod was re-created (new uid) between the scan and the release', async () => {
    const [ip] = await h.assign({ node: 'node-a', name: 'job' });
    await h.pass();
    h.clock.advance(15 * MINUTE + 1);
    h.onLivePod = async () => {
      h.addPod(pod({ name: 'job', node: 'node-a', uid: 'reborn' })); // no address reported yet
    };
    expect(await h.pass()).toMatchObject({ released: 0 });
    expect(await isAllocated(h.ipam, ip!)).toBe(true);
    expect(h.logs.some((l) => l.msg.includes('final re-validation'))).toBe(true);
  });

  it('releases at most maxReleasesPerPass addresses per pass; the rest roll over', async () => {
    h.settings = { ...h.settings, maxReleasesPerPass: 2 };
    for (const name of ['a', 'b', 'c', 'd', 'e']) await h.assign({ node: 'node-a', name });
    await h.pass();
    h.clock.advance(16 * MINUTE);
    expect(await h.pass()).toMatchObject({ released: 2 });
    expect(await h.pass()).toMatchObject({ released: 2 });
    expect(await h.pass()).toMatchObject({ released: 1 });
    expect(h.state.allocations.size).toBe(0);
  });

  it('makes no write as a follower, but still judges (its metrics stay current)', async () => {
    h.leader = false;
    const [ip] = await h.assign({ node: 'node-a', name: 'web' });
    await h.pass();
    h.clock.advance(16 * MINUTE);
    expect(await h.pass()).toMatchObject({ confirmed: 1, released: 0 });
    expect(await isAllocated(h.ipam, ip!)).toBe(true);
    h.leader = true;
    expect(await h.pass()).toMatchObject({ released: 1 });
  });

  it('leaves allocations without pod attributes alone (valid until proven leaked)', async () => {
    const [ip] = await h.assign({ node: 'node-a', name: 'x', attrs: { node: 'node-a' } });
    await h.pass();
    h.clock.advance(60 * MINUTE);
    expect(await h.pass()).toMatchObject({ candidates: 0, released: 0 });
    expect(await isAllocated(h.ipam, ip!)).toBe(true);
  });
});

describe('KubeVirt VM addresses', () => {
  const vmAttrs = (node: string) => ({
    namespace: 'default',
    pod: 'virt-launcher-vm1-abcde',
    'vmi-name': 'vm1',
    node,
  });

  it('waits at least 5 minutes for a gone VM, whatever the grace period', async () => {
    h.settings = { ...h.settings, leakGracePeriodMs: MINUTE };
    const [ip] = await h.assign({ node: 'node-a', name: 'vm1', attrs: vmAttrs('node-a') });
    h.vms.set('default/vm1', 'notFound');
    expect(await h.pass()).toMatchObject({ candidates: 1 });
    h.clock.advance(MINUTE + 1);
    expect(await h.pass()).toMatchObject({ candidates: 1, released: 0 });
    h.clock.advance(4 * MINUTE);
    expect(await h.pass()).toMatchObject({ released: 1 });
    expect(await isAllocated(h.ipam, ip!)).toBe(false);
  });

  it.each(['vmExists', 'standaloneVmiExists', 'kubevirtAbsent', 'error'] as const)(
    'keeps the address when the lookup says %s',
    async (answer) => {
      const [ip] = await h.assign({ node: 'node-a', name: 'vm1', attrs: vmAttrs('node-a') });
      h.vms.set('default/vm1', answer);
      await h.pass();
      h.clock.advance(60 * MINUTE);
      expect(await h.pass()).toMatchObject({ candidates: 0, released: 0 });
      expect(await isAllocated(h.ipam, ip!)).toBe(true);
    },
  );
});

describe('deleted nodes', () => {
  it('releases the pods, tunnel addresses, blocks and affinities of a deleted node at once', async () => {
    await h.ipam.nodes.create({
      metadata: { name: 'node-a' },
      spec: { orchRefs: [{ orchestrator: 'k8s', nodeName: 'node-a' }] },
    });
    const [p1] = await h.assign({ node: 'node-a', name: 'p1' });
    const [tunnel] = await h.assign({
      node: 'node-a',
      name: 'tunnel',
      handle: 'ipip-tunnel-addr-node-a',
      attrs: { node: 'node-a', type: 'ipipTunnelAddress' },
    });
    h.addPod(pod({ name: 'p1', node: 'node-a', ips: [p1!] }));
    await h.pass();
    h.nodes.delete('node-a');
    h.deletePod('p1');
    const r = await h.pass();
    expect(r).toMatchObject({ released: 2, nodesCleaned: 1 });
    expect(await isAllocated(h.ipam, tunnel!)).toBe(false);
    expect((await h.ds.list({ kind: 'IPAMBlock' })).items).toEqual([]);
    expect((await h.ds.list({ kind: 'BlockAffinity', host: 'node-a' })).items).toEqual([]);
    expect((await h.ds.list({ kind: 'Node' })).items).toEqual([]);
  });

  it('keeps a deleted node while a pod on it still holds its address, and its tunnel address with it', async () => {
    const [p1] = await h.assign({ node: 'node-a', name: 'p1' });
    const [tunnel] = await h.assign({
      node: 'node-a',
      name: 't',
      handle: 'vxlan-tunnel-addr-node-a',
      attrs: { node: 'node-a', type: 'vxlanTunnelAddress' },
    });
    h.addPod(pod({ name: 'p1', node: 'node-a', ips: [p1!] }));
    h.nodes.delete('node-a');
    expect(await h.pass()).toMatchObject({ released: 0, nodesCleaned: 0 });
    expect(await isAllocated(h.ipam, tunnel!)).toBe(true);
  });

  it('maps a Calico node to its Kubernetes node by its k8s orchRef', async () => {
    await h.ipam.nodes.create({
      metadata: { name: 'calico-a.example' },
      spec: { orchRefs: [{ orchestrator: 'k8s', nodeName: 'node-a' }] },
    });
    const [ip] = await h.assign({ node: 'calico-a.example', name: 'p' });
    h.addPod(pod({ name: 'p', node: 'node-a', ips: [ip!] }));
    expect(await h.pass()).toMatchObject({ candidates: 0, nodesCleaned: 0 });
    h.nodes.delete('node-a');
    h.deletePod('p');
    expect(await h.pass()).toMatchObject({ released: 1, nodesCleaned: 1 });
  });

  it('leaves nodes of another orchestrator alone', async () => {
    await h.ipam.nodes.create({
      metadata: { name: 'bare-metal' },
      spec: { orchRefs: [{ orchestrator: 'openstack', nodeName: 'bm' }] },
    });
    const [ip] = await h.assign({ node: 'bare-metal', name: 'p' });
    await h.pass();
    h.clock.advance(60 * MINUTE);
    expect(await h.pass()).toMatchObject({ candidates: 0, released: 0, nodesCleaned: 0 });
    expect(await isAllocated(h.ipam, ip!)).toBe(true);
  });

  it('does not clean up a node the informer missed but the API still has', async () => {
    const [ip] = await h.assign({ node: 'node-a', name: 'p' });
    h.nodes.delete('node-a'); // the cache says gone...
    h.liveNodeExists = (name) => name === 'node-a'; // ...the API says it exists
    expect(await h.pass()).toMatchObject({ released: 0, nodesCleaned: 0 });
    expect(await isAllocated(h.ipam, ip!)).toBe(true);
    expect(h.logs.some((l) => l.fields.why === 'the node exists')).toBe(true);
  });
});

describe('blocks', () => {
  it('frees an idle block cooled down by the backstop, then cleans its deleted node', async () => {
    await h.ipam.setIpamConfig({ ...(await h.ipam.getIpamConfig()), ipCooldownSeconds: 120 });
    const [ip] = await h.assign({ node: 'node-a', name: 'p' });
    await h.ipam.releaseByHandle('k8s-pod-network.p'); // CNI DEL: the address cools down
    await h.sync();
    expect(h.state.coldBlocks.size).toBe(1);
    expect(await h.pass()).toMatchObject({ coldBlocksCollected: 0 });
    h.clock.advance(121_000);
    expect(await h.pass()).toMatchObject({ coldBlocksCollected: 1 });
    expect(h.state.coldBlocks.size).toBe(0);
    const block = (await h.ds.list({ kind: 'IPAMBlock' })).items[0]!.value;
    expect(block.allocations.every((a) => a === null)).toBe(true);
    void ip;
  });

  it('releases an empty block after two observations spanning the grace period, never the last', async () => {
    // Three blocks for node-a (16 addresses each).
    const ips: string[] = [];
    for (let i = 0; i < 40; i++) ips.push(...(await h.assign({ node: 'node-a', name: `p${i}` })));
    for (let i = 0; i < 40; i++) h.addPod(pod({ name: `p${i}`, node: 'node-a', ips: [ips[i]!] }));
    for (let i = 0; i < 40; i++) {
      await h.ipam.releaseByHandle(`k8s-pod-network.p${i}`);
      h.deletePod(`p${i}`);
    }
    expect(await h.pass()).toMatchObject({ emptyBlocksReleased: 0 });
    expect(h.state.emptySince.size).toBe(3);
    h.clock.advance(15 * MINUTE);
    expect(await h.pass()).toMatchObject({ emptyBlocksReleased: 0 });
    h.clock.advance(1);
    expect(await h.pass()).toMatchObject({ emptyBlocksReleased: 2 });
    expect(h.state.blocksByNode.get('node-a')?.size).toBe(1);
    h.clock.advance(60 * MINUTE);
    expect(await h.pass()).toMatchObject({ emptyBlocksReleased: 0 });
  });

  it('resets the empty-block timer when the block is used again', async () => {
    for (let i = 0; i < 17; i++) await h.assign({ node: 'node-a', name: `p${i}` });
    await h.ipam.releaseByHandle('k8s-pod-network.p16'); // second block empty
    await h.pass();
    h.clock.advance(10 * MINUTE);
    await h.assign({ node: 'node-a', name: 'again' }); // lands in... whichever block has room
    await h.ipam.releaseByHandle('k8s-pod-network.again');
    await h.pass();
    expect(h.state.emptySince.size).toBeLessThanOrEqual(1);
  });

  it('reclaims the last empty block of a node when its pool is full (calico#11149)', async () => {
    await h.ipam.pools.delete('default');
    await h.ipam.pools.create({
      metadata: { name: 'tiny' },
      spec: { cidr: '10.1.0.0/27', blockSize: 28 },
    });
    const [a] = await h.assign({ node: 'node-a', name: 'a' });
    await h.assign({ node: 'node-b', name: 'b' });
    h.addPod(pod({ name: 'b', node: 'node-b', ips: [] }));
    await h.ipam.releaseByHandle('k8s-pod-network.a');
    void a;
    await h.pass();
    h.clock.advance(16 * MINUTE);
    const r = await h.pass();
    expect(r.emptyBlocksReleased).toBe(1);
    expect(
      h.logs.find((l) => l.msg === 'released the affinity of an empty block')?.fields,
    ).toMatchObject({ node: 'node-a', reason: 'pool-full' });
  });
});

describe('orphan handles', () => {
  it('deletes a handle that holds no address for longer than the grace period', async () => {
    await h.assign({ node: 'node-a', name: 'p' });
    // A handle left behind: its count says one address, no block holds any for it.
    await h.ds.create({
      key: { kind: 'IPAMHandle', handleId: 'k8s-pod-network.gone' },
      value: { handleId: 'k8s-pod-network.gone', block: { '10.0.0.0/28': 1 }, deleted: false },
    });
    h.addPod(pod({ name: 'p', node: 'node-a', ips: [] }));
    await h.pass();
    h.clock.advance(15 * MINUTE);
    expect(await h.pass()).toMatchObject({ handlesDeleted: 0 });
    h.clock.advance(1);
    expect(await h.pass()).toMatchObject({ handlesDeleted: 1 });
    const handles = (await h.ds.list({ kind: 'IPAMHandle' })).items.map((kv) => kv.key.handleId);
    expect(handles).toEqual(['k8s-pod-network.p']);
  });

  it('does not delete a handle changed since it was first seen empty', async () => {
    const kv = await h.ds.create({
      key: { kind: 'IPAMHandle', handleId: 'h' },
      value: { handleId: 'h', block: {}, deleted: false },
    });
    await h.pass();
    h.clock.advance(10 * MINUTE);
    await h.ds.update({ ...kv, value: { ...kv.value, block: { '10.0.0.0/28': 1 } } }); // a CNI ADD in flight
    await h.pass();
    h.clock.advance(10 * MINUTE);
    expect(await h.pass()).toMatchObject({ handlesDeleted: 0 });
  });
});
