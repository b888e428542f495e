import type { Datastore } from '@netledger/ipam-core';
import { createTempDir, describeIpamScenarios } from '@netledger/testkit';
import { join } from 'node:path';
import { createFileDatastore } from './file-datastore.js';

// The ipam-core scenario suite on the embedded file store: each scenario gets a fresh store file.
const dirs: { remove(): Promise<void> }[] = [];
describeIpamScenarios('file', {
  async open(): Promise<Datastore> {
    const dir = await createTempDir('netledger-scenarios-');
    dirs.push(dir);
    return createFileDatastore({ path: join(dir.path, 'datastore.json') });
  },
  async teardown() {
    await Promise.all(dirs.map((d) => d.remove()));
  },
});
