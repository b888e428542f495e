import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DatastoreKey, WatchEvent } from '@netledger/ipam-core';
import { createTempDir } from '@netledger/testkit';
import { build } from 'esbuild';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createFileDatastore } from './file-datastore.js';

// Multi-process tests: children are real `node` processes running src/test-worker.ts, bundled
// by esbuild (workspace packages resolve to their TypeScript source via the `source` condition).

const here = dirname(fileURLToPath(import.meta.url));
const counter: DatastoreKey<'IPAMHandle'> = { kind: 'IPAMHandle', handleId: 'counter' };

let tmp: { path: string; remove: () => Promise<void> };
let worker: string;
let path: string;

interface Child {
  readonly proc: ChildProcess;
  readonly lines: string[];
  readonly exited: Promise<number | null>;
  /** Resolves when the child has printed `n` lines. */
  linesAtLeast(n: number): Promise<void>;
}

function runWorker(args: Record<string, unknown>): Child {
  const proc = spawn(process.execPath, [worker, JSON.stringify({ path, ...args })], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  let partial = '';
  let stderr = '';
  proc.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop()!;
    lines.push(...parts);
    for (const w of waiters.filter((w) => lines.length >= w.n)) w.resolve();
  });
  proc.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) =>
    proc.on('exit', (code) => {
      if (code) console.error(stderr);
      resolve(code);
    }),
  );
  return {
    proc,
    lines,
    exited,
    linesAtLeast: (n) =>
      lines.length >= n
        ? Promise.resolve()
        : new Promise((resolve) => waiters.push({ n, resolve })),
  };
}

beforeAll(async () => {
  tmp = await createTempDir('netledger-file-int-');
  worker = join(tmp.path, 'worker.mjs');
  await build({
    entryPoints: [join(here, 'test-worker.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    conditions: ['source'],
    outfile: worker,
    logLevel: 'warning',
  });
});
afterAll(async () => {
  await tmp.remove();
});

describe('file datastore across processes', () => {
  let n = 0;
  beforeEach(() => {
    path = join(tmp.path, `store-${++n}`, 'datastore.json');
  });

  // 500 fsync'd writes through one lock: a correctness test, so its time limit is only a guard
  // against a hang, generous enough for a machine busy with other work.
  it(
    'loses no compare-and-swap increment when processes hammer one key',
    { timeout: 120_000 },
    async () => {
      const ds = await createFileDatastore({ path });
      await ds.create({
        key: counter,
        value: { handleId: 'counter', block: { n: 0 }, deleted: false },
      });
      const children = [0, 1, 2].map(() => runWorker({ mode: 'increment', count: 150 }));
      // Increments from this process too, interleaved with the children.
      const bump = async (): Promise<boolean> => {
        const kv = await ds.get(counter);
        try {
          await ds.update({ ...kv, value: { ...kv.value, block: { n: kv.value.block.n! + 1 } } });
          return true;
        } catch (e) {
          if ((e as { code?: string }).code === 'UpdateConflict') return false;
          throw e;
        }
      };
      for (let i = 0; i < 50; i++) while (!(await bump()));
      expect(await Promise.all(children.map((c) => c.exited))).toEqual([0, 0, 0]);
      expect((await ds.get(counter)).value.block.n).toBe(3 * 150 + 50);
      await ds.close();
    },
  );

  it('sees writes of another process in a watch', async () => {
    const ds = await createFileDatastore({ path, watchIntervalMs: 20 });
    const stream = ds.watch({ kind: 'IPAMHandle' });
    const events: WatchEvent[] = [];
    const done = (async () => {
      for await (const e of stream) {
        events.push(e);
        break;
      }
    })();
    expect(await runWorker({ mode: 'create', key: 'from-child' }).exited).toBe(0);
    await done;
    expect(events[0]).toMatchObject({ type: 'added', kv: { key: { handleId: 'from-child' } } });
    await ds.close();
  });

  it('survives kill -9 at random moments: every reopen passes the full consistency check', async () => {
    const ds = await createFileDatastore({ path });
    await ds.create({
      key: counter,
      value: { handleId: 'counter', block: { n: 0 }, deleted: false },
    });
    await ds.close();
    let committed = 0;
    let diedHoldingLock = 0;
    for (let round = 0; round < 20; round++) {
      const child = runWorker({ mode: 'loop' });
      await child.linesAtLeast(1);
      await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 40)));
      child.proc.kill('SIGKILL');
      await child.exited;
      if ((await readdir(dirname(path))).includes('datastore.json.lock')) diedHoldingLock++;
      const printed = child.lines.map(Number).filter(Number.isFinite);
      // Opening validates every path, value and revision (CorruptValue otherwise) and recovers
      // the lock the child may have died holding.
      const store = await createFileDatastore({ path, lockTimeoutMs: 2_000 });
      const n = (await store.get(counter)).value.block.n!;
      // Everything the child reported was committed; at most one more write may have landed.
      expect(n).toBeGreaterThanOrEqual(Math.max(committed, ...printed));
      expect(n).toBeLessThanOrEqual(Math.max(committed, ...printed) + 1);
      const { items } = await store.list({ kind: 'IPAMHandle' });
      for (const kv of items.filter((i) => /^k\d+$/.test(i.key.handleId))) {
        expect(kv.value.block.n).toBeLessThanOrEqual(n);
      }
      await store.apply({
        key: { kind: 'IPAMHandle', handleId: 'parent' },
        value: { handleId: 'parent', block: { round }, deleted: false },
      });
      await store.close();
      committed = n;
    }
    expect(committed).toBeGreaterThan(20);
    // Most kills land while the child holds the lock (it writes in a tight loop), so the stale
    // lock recovery path is exercised too.
    expect(diedHoldingLock).toBeGreaterThan(0);
    const left = await readdir(dirname(path));
    expect(left.filter((f) => f.includes('.tmp-'))).toEqual([]);
  }, 120_000);
});
