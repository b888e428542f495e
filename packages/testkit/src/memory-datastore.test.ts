import { createMemoryDatastore } from '@netledger/ipam-core';
import { describeDatastoreContract } from './datastore-contract.js';

describeDatastoreContract('memory', { open: async () => createMemoryDatastore() });
