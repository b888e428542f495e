import { KINDS, createMemoryDatastore } from '@netledger/ipam-core';
import type { Datastore } from '@netledger/ipam-core';
import { createMirroredDatastore } from '@netledger/ipam-core/adapter';
import { describeDatastoreContract } from './datastore-contract.js';
import { describeMirrorContract } from './mirror-contract.js';

// The mirror must be indistinguishable from the store it fronts: once with the default kinds,
// once with every kind mirrored so the contract's handle and block cases go through memory too.
// The file store and etcd run the same suites in their own packages (datastore-file,
// datastore-etcd), and the node agent's stack of wrappers in apps/node-agent.
let memory: Datastore | undefined;
describeMirrorContract('memory', {
  open: async () => (memory = createMemoryDatastore()),
  // Another client of the same memory store: its calls, but closing it leaves the store open.
  reopen: async () => ({ ...memory!, close: async () => undefined }),
});
describeDatastoreContract('memory behind a mirror of every kind', {
  open: async () => createMirroredDatastore(createMemoryDatastore(), { kinds: KINDS }),
});
