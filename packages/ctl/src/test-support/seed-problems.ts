import type { Datastore, IpamClient } from '@netledger/ipam-core';

/**
 * Seeds one of each problem `ipam check` finds, plus healthy allocations around them:
 * 10.0.0.1 a node's tunnel address (in use), 10.0.0.2 a pod (assumed in use), 10.0.0.3 a
 * tunnel address of a node that is gone (leaked), 10.0.0.4 released and cooling down, 10.0.0.5
 * a pod whose handle object is missing; node n2's tunnel address 192.168.99.1 outside every
 * pool; node n3's 10.0.0.200 in the pool but unallocated; handle `orphan` with no address;
 * block 10.0.0.64/28 with an attribute no allocation uses (invalid).
 */
export async function seedProblems(ipam: IpamClient, datastore: Datastore): Promise<void> {
  await ipam.pools.create({
    metadata: { name: 'p' },
    spec: { cidr: '10.0.0.0/24', blockSize: 28 },
  });
  await ipam.setIpamConfig({ ...(await ipam.getIpamConfig()), ipCooldownSeconds: 600 });
  await ipam.nodes.create({ metadata: { name: 'n1' }, spec: { ipv4VXLANTunnelAddr: '10.0.0.1' } });
  await ipam.nodes.create({
    metadata: { name: 'n2' },
    spec: { ipv4VXLANTunnelAddr: '192.168.99.1' },
  });
  await ipam.nodes.create({
    metadata: { name: 'n3' },
    spec: { wireguard: { interfaceIPv4Address: '10.0.0.200' } },
  });
  const assign = (ip: string, handleId: string, attrs: Record<string, string>) =>
    ipam.assignIp({ ip, hostname: 'n1', handleId, attrs, intendedUse: 'Workload' });
  await assign('10.0.0.1', 'vxlan-tunnel-addr-n1', { node: 'n1', type: 'vxlanTunnelAddress' });
  await assign('10.0.0.2', 'k8s-pod-network.pod1', {
    node: 'n1',
    namespace: 'default',
    pod: 'pod1',
  });
  await assign('10.0.0.3', 'vxlan-tunnel-addr-gone', { node: 'gone', type: 'vxlanTunnelAddress' });
  await assign('10.0.0.4', 'k8s-pod-network.pod2', {
    node: 'n1',
    namespace: 'default',
    pod: 'pod2',
  });
  await ipam.releaseIps([{ address: '10.0.0.4' }]);
  await assign('10.0.0.5', 'k8s-pod-network.pod3', {
    node: 'n1',
    namespace: 'default',
    pod: 'pod3',
  });
  await datastore.delete({ kind: 'IPAMHandle', handleId: 'k8s-pod-network.pod3' });
  await datastore.create({
    key: { kind: 'IPAMHandle', handleId: 'orphan' },
    value: { handleId: 'orphan', block: { '10.0.0.0/28': 1 }, deleted: false },
  });
  await datastore.create({
    key: { kind: 'IPAMBlock', cidr: '10.0.0.64/28' },
    value: {
      cidr: '10.0.0.64/28',
      allocations: Array.from({ length: 16 }, () => null),
      unallocated: Array.from({ length: 16 }, (_, i) => i),
      attributes: [{ handleId: 'ghost' }],
      sequenceNumber: 1767225600000000123n,
      sequenceNumberForAllocation: {},
      deleted: false,
    },
  });
}
