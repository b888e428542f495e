// The read mirror (ipam-core's createMirroredDatastore, what the node agent puts in front of its
// store) over the file store: the Datastore contract through it, and its watch following another
// client's writes with no re-sync (the file store's watch events decode their values lazily, and
// the mirror freezes what it keeps).
import { join } from 'node:path';
import { createTempDir, describeMirrorContract } from '@netledger/testkit';
import { createFileDatastore } from './file-datastore.js';

const dirs: Array<{ remove: () => Promise<void> }> = [];
let path = '';

describeMirrorContract('the file store', {
  async open() {
    const dir = await createTempDir('netledger-file-mirror-');
    dirs.push(dir);
    path = join(dir.path, 'datastore.json');
    return createFileDatastore({ path });
  },
  reopen: async () => createFileDatastore({ path }),
  async teardown() {
    await Promise.all(dirs.splice(0).map((d) => d.remove()));
  },
});
