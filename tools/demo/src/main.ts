// The main job on the embedded file store: a pool, two nodes, a few pods' addresses, then the
// pool's utilization and each block's owner. Run by `npm run demo` (scripts/main-job.mjs).
import { createFileDatastore } from '@netledger/datastore-file';
import { createIpamClient, isIpamError } from '@netledger/ipam-core';

const path = process.env.NETLEDGER_DATASTORE_PATH;
if (!path) throw new Error('NETLEDGER_DATASTORE_PATH must name the store file');
const datastore = await createFileDatastore({ path });
const ipam = createIpamClient({ datastore });
try {
  try {
    await ipam.pools.create({
      metadata: { name: 'demo-pool' },
      spec: { cidr: '10.100.0.0/24', blockSize: 28 },
    });
  } catch (e) {
    if (!isIpamError(e, 'AlreadyExists')) throw e;
  }
  for (const name of ['node-a', 'node-b']) {
    await ipam.nodes.create({ metadata: { name } }).catch((e: unknown) => {
      if (!isIpamError(e, 'AlreadyExists')) throw e;
    });
  }
  for (const [node, pod] of [
    ['node-a', 'web-0'],
    ['node-a', 'web-1'],
    ['node-b', 'db-0'],
  ] as const) {
    // A re-run re-creates the pod: its previous address is released first.
    await ipam.releaseByHandle(`k8s-pod-network.${pod}`).catch((e: unknown) => {
      if (!isIpamError(e, 'DoesNotExist')) throw e;
    });
    const { v4 } = await ipam.autoAssign({
      num4: 1,
      hostname: node,
      handleId: `k8s-pod-network.${pod}`,
      attrs: { node, pod, namespace: 'default' },
      intendedUse: 'Workload',
    });
    console.log(`${pod.padEnd(6)} on ${node}: ${v4.ips.join(', ')}`);
  }
  for (const pool of await ipam.getUtilization({ pools: ['demo-pool'] })) {
    console.log(
      `\npool ${pool.name} ${pool.cidr}: ${pool.inUse} in use, ${pool.available} available of ${pool.capacity}`,
    );
    for (const b of pool.blocks)
      console.log(`  block ${b.cidr}: ${b.inUse} in use, ${b.available} free`);
  }
  console.log(`\nstore: ${path}`);
} finally {
  await datastore.close();
}
