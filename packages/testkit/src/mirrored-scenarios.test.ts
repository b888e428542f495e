import { KINDS, createMemoryDatastore } from '@netledger/ipam-core';
import { createMirroredDatastore } from '@netledger/ipam-core/adapter';
import { describeIpamScenarios } from './index.js';

// The IPAM client over a mirror must behave as over the store: with the default kinds (what a
// node agent would run), and with every kind mirrored so blocks and handles come from memory too.
describeIpamScenarios('memory behind a mirror', {
  open: async () => createMirroredDatastore(createMemoryDatastore()),
});
describeIpamScenarios('memory behind a mirror of every kind', {
  open: async () => createMirroredDatastore(createMemoryDatastore(), { kinds: KINDS }),
});
