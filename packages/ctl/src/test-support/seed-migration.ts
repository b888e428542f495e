import type { Datastore, IpamClient } from '@netledger/ipam-core';

/** A cluster with pools, a reservation, config, node tunnel handles (v4 and v6) and pods on `old-1`. */
export async function seedMigration(ipam: IpamClient, datastore: Datastore): Promise<void> {
  await ipam.pools.create({
    metadata: { name: 'v4' },
    spec: { cidr: '10.10.0.0/16', blockSize: 26 },
  });
  await ipam.pools.create({
    metadata: { name: 'v6' },
    spec: { cidr: 'fd10::/48', blockSize: 122 },
  });
  await ipam.reservations.create({
    metadata: { name: 'r' },
    spec: { reservedCIDRs: ['10.10.255.0/24'] },
  });
  await ipam.setIpamConfig({
    ...(await ipam.getIpamConfig()),
    strictAffinity: true,
    maxBlocksPerHost: 4,
  });
  await ipam.nodes.create({ metadata: { name: 'old-1', labels: { zone: 'a' } } });
  await ipam.nodes.create({ metadata: { name: 'keep-2' } });
  const tunnel = async (handleId: string, num4: number, num6: number, type: string) =>
    ipam.autoAssign({
      num4,
      num6,
      hostname: 'old-1',
      handleId,
      attrs: { node: 'old-1', type },
      intendedUse: 'Tunnel',
    });
  await tunnel('vxlan-tunnel-addr-old-1', 1, 0, 'vxlanTunnelAddress');
  await tunnel('vxlan-v6-tunnel-addr-old-1', 0, 1, 'vxlanV6TunnelAddress');
  await tunnel('wireguard-v6-tunnel-addr-old-1', 0, 1, 'wireguardV6TunnelAddress');
  await ipam.autoAssign({
    num4: 2,
    hostname: 'old-1',
    handleId: 'k8s-pod-network.abc',
    attrs: { node: 'old-1', namespace: 'default', pod: 'web-0' },
    intendedUse: 'Workload',
  });
  await ipam.autoAssign({
    num4: 1,
    hostname: 'keep-2',
    handleId: 'k8s-pod-network.def',
    attrs: { node: 'keep-2', namespace: 'default', pod: 'web-1' },
    intendedUse: 'Workload',
  });
  await datastore.list({ kind: 'IPAMBlock' });
}
