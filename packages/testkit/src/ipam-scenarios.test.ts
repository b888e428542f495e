import { createMemoryDatastore } from '@netledger/ipam-core';
import { describeIpamScenarios } from './index.js';

describeIpamScenarios('memory', { open: async () => createMemoryDatastore() });
