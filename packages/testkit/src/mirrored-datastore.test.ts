import { KINDS, createMemoryDatastore } from '@netledger/ipam-core';
import { createMirroredDatastore } from '@netledger/ipam-core/adapter';
import { describeDatastoreContract } from './datastore-contract.js';

// The mirror must be indistinguishable from the store it fronts: once with the default kinds,
// once with every kind mirrored so the contract's handle and block cases go through memory too.
describeDatastoreContract('memory behind a mirror', {
  open: async () => createMirroredDatastore(createMemoryDatastore()),
});
describeDatastoreContract('memory behind a mirror of every kind', {
  open: async () => createMirroredDatastore(createMemoryDatastore(), { kinds: KINDS }),
});
