// A child process for the multi-process tests (bundled with esbuild by the test that runs it).
// argv[2] is JSON: { path, mode: 'increment' | 'loop' | 'create', count?, key? }. It reports on
// stdout, one line per event, so a parent that kills it knows what was committed.
import { IpamError } from '@netledger/ipam-core';
import type { DatastoreKey } from '@netledger/ipam-core';
import { createFileDatastore } from './file-datastore.js';

interface WorkerArgs {
  readonly path: string;
  readonly mode: 'increment' | 'loop' | 'create';
  readonly count?: number;
  readonly key?: string;
}

const args = JSON.parse(process.argv[2] ?? '{}') as WorkerArgs;
const counter: DatastoreKey<'IPAMHandle'> = { kind: 'IPAMHandle', handleId: 'counter' };

const ds = await createFileDatastore({ path: args.path, lockTimeoutMs: 20_000 });

/** One compare-and-swap increment of the counter; returns the value written. */
async function increment(): Promise<number> {
  for (;;) {
    const kv = await ds.get(counter);
    const n = (kv.value.block.n ?? 0) + 1;
    try {
      await ds.update({ ...kv, value: { ...kv.value, block: { n } } });
      return n;
    } catch (e) {
      if (!(e instanceof IpamError) || e.code !== 'UpdateConflict') throw e;
    }
  }
}

if (args.mode === 'increment') {
  for (let i = 0; i < (args.count ?? 1); i++) await increment();
  process.stdout.write('done\n');
} else if (args.mode === 'create') {
  const handleId = args.key ?? 'child';
  await ds.create({
    key: { kind: 'IPAMHandle', handleId },
    value: { handleId, block: {}, deleted: false },
  });
  process.stdout.write('done\n');
} else {
  // Runs until killed: each committed counter value, and a new key every tenth write.
  for (let i = 0; ; i++) {
    const n = await increment();
    if (i % 10 === 0) {
      const handleId = `k${n}`;
      await ds.apply({
        key: { kind: 'IPAMHandle', handleId },
        value: { handleId, block: { n }, deleted: false },
      });
    }
    process.stdout.write(`${n}\n`);
  }
}
await ds.close();
