// The node agent's stack of store wrappers (createAgentStore: counted, then mirrored, blocks
// included), as netledger-node builds it, over the file store and over etcd (through its
// HTTP gateway, as the agent reaches it): the Datastore contract through the stack, and the mirror
// inside it following another client's pool, Node and affinity changes with no re-sync.
import { join } from 'node:path';
import { createAgentStore } from '@netledger/agent';
import { createEtcdDatastore } from '@netledger/datastore-etcd';
import { createFileDatastore } from '@netledger/datastore-file';
import { KINDS } from '@netledger/ipam-core';
import type { Datastore } from '@netledger/ipam-core';
import { createTempDir, describeMirrorContract, startEtcd } from '@netledger/testkit';
import type { EtcdFixture, MirrorUnderTest } from '@netledger/testkit';
import { afterAll } from 'vitest';
import { AGENT_FILE_STORE_OPTIONS } from '../src/agent-store-options.js';

/** The stack netledger-node puts in front of its store, for node1. */
const agentStack = (raw: Datastore, onFallback: (error: unknown) => void): MirrorUnderTest => {
  const store = createAgentStore(raw, { nodename: 'node1', count: () => undefined, onFallback });
  return { datastore: store, isSynced: () => store.isSynced() };
};

const dirs: Array<{ remove: () => Promise<void> }> = [];
let path = '';
describeMirrorContract('the file store (the agent’s stack)', {
  mirror: agentStack,
  async open() {
    const dir = await createTempDir('netledger-agent-stack-');
    dirs.push(dir);
    path = join(dir.path, 'datastore.json');
    return createFileDatastore({ path, ...AGENT_FILE_STORE_OPTIONS });
  },
  reopen: async () => createFileDatastore({ path }),
  async teardown() {
    await Promise.all(dirs.splice(0).map((d) => d.remove()));
  },
});

let etcd: Promise<EtcdFixture> | undefined;
const etcdStore = async (): Promise<Datastore> =>
  createEtcdDatastore({ endpoints: (await (etcd ??= startEtcd())).endpoints, transport: 'http' });
afterAll(async () => {
  await (await etcd)?.stop();
});
describeMirrorContract('etcd (the agent’s stack)', {
  listOrder: 'path',
  mirror: agentStack,
  async open() {
    // Empty it through the Datastore itself: every kind listed, every object deleted.
    const ds = await etcdStore();
    for (const kind of KINDS) {
      for (const { key } of (await ds.list({ kind })).items) await ds.delete(key);
    }
    return ds;
  },
  reopen: etcdStore,
});
