// A consumer of the published packages, compiled and run in a scratch project outside the
// workspace (test/consumer-project.int.test.ts): autoAssign through the public entry points only.
// Usage: node auto-assign.js memory | node auto-assign.js etcd <endpoint>
// Prints one JSON object: the addresses assigned and what the handle holds.
import type { Datastore } from '@netledger/ipam-core';
import { createIpamClient, createMemoryDatastore } from '@netledger/ipam-core';
import { createEtcdDatastore } from '@netledger/datastore-etcd';

/** What the consumer prints. */
export interface AssignReport {
  readonly v4: string[];
  readonly v6: string[];
  readonly byHandle: string[];
}

async function assignOn(datastore: Datastore): Promise<AssignReport> {
  const ipam = createIpamClient({ datastore });
  await ipam.pools.create({
    metadata: { name: 'consumer-v4' },
    spec: { cidr: '10.244.0.0/26', blockSize: 26 },
  });
  await ipam.pools.create({
    metadata: { name: 'consumer-v6' },
    spec: { cidr: 'fd00:10::/122', blockSize: 122 },
  });
  await ipam.nodes.create({ metadata: { name: 'node-1' } });
  const { v4, v6 } = await ipam.autoAssign({
    num4: 2,
    num6: 1,
    hostname: 'node-1',
    handleId: 'consumer.0',
    attrs: { namespace: 'default', pod: 'web-0', node: 'node-1' },
    intendedUse: 'Workload',
  });
  return { v4: v4.ips, v6: v6.ips, byHandle: await ipam.ipsByHandle('consumer.0') };
}

function open(argv: readonly string[]): Datastore {
  const [store, endpoint] = argv;
  if (store === 'memory') return createMemoryDatastore();
  if (store === 'etcd' && endpoint !== undefined)
    return createEtcdDatastore({ endpoints: [endpoint] });
  throw new Error('usage: auto-assign.js memory | auto-assign.js etcd <endpoint>');
}

const datastore = open(process.argv.slice(2));
try {
  console.log(JSON.stringify(await assignOn(datastore)));
} finally {
  await datastore.close();
}
