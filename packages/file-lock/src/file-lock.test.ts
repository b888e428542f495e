import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createTempDir } from '@netledger/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFileLock } from './file-lock.js';
import type { FileLockOptions } from './file-lock.js';
import type { FileWarning } from './file-warning.js';
import { blockingLockFs, threadPoolLockFs } from './lock-fs.js';
import type { LockFs } from './lock-fs.js';
import type { LockHolder } from './lock-holder.js';
import { formatLockHolder } from './lock-holder.js';
import { currentLockHolder } from './process-probe.js';

/** A pid that certainly belonged to a process that has exited and been reaped. */
const deadPid = (): number => spawnSync(process.execPath, ['-e', '']).pid;

describe.each([
  { io: 'thread-pool', fs: threadPoolLockFs },
  { io: 'blocking', fs: blockingLockFs },
])('createFileLock ($io file calls)', ({ fs }) => {
  let dir: { path: string; remove: () => Promise<void> };
  let lockPath: string;
  let self: LockHolder;
  const makeLock = async (nonce: string, timeoutMs = 2_000, more: Partial<FileLockOptions> = {}) =>
    createFileLock({ fs, lockPath, timeoutMs, holder: { ...self, nonce }, ...more });

  beforeEach(async () => {
    dir = await createTempDir('netledger-lock-');
    lockPath = join(dir.path, 'store.json.lock');
    self = await currentLockHolder(fs, 'test');
  });
  afterEach(async () => {
    await dir.remove();
  });

  it('gives mutual exclusion between instances', async () => {
    const locks = await Promise.all(['a', 'b', 'c'].map((n) => makeLock(n)));
    let inside = 0;
    let maxInside = 0;
    await Promise.all(
      locks.map(async (lock) => {
        for (let i = 0; i < 20; i++) {
          await lock.acquire();
          inside++;
          maxInside = Math.max(maxInside, inside);
          await new Promise((r) => setTimeout(r, 1));
          inside--;
          await lock.release();
        }
      }),
    );
    expect(maxInside).toBe(1);
    await Promise.all(locks.map((l) => l.dispose()));
    expect(await readdir(dir.path)).toEqual([]);
  });

  it('breaks a lock whose holder pid is dead', async () => {
    await writeFile(lockPath, formatLockHolder({ ...self, pid: deadPid(), nonce: 'gone' }));
    const lock = await makeLock('me');
    await lock.acquire();
    expect(await readFile(lockPath, 'utf8')).toBe(formatLockHolder({ ...self, nonce: 'me' }));
    await lock.release();
    await lock.dispose();
  });

  it('removes a breaker left by a dead process, then breaks the stale lock', async () => {
    const pid = deadPid();
    await writeFile(lockPath, formatLockHolder({ ...self, pid, nonce: 'gone' }));
    await writeFile(`${lockPath}.break`, formatLockHolder({ ...self, pid, nonce: 'gone-breaker' }));
    const lock = await makeLock('me');
    await lock.acquire();
    await lock.release();
    await lock.dispose();
    expect(await readdir(dir.path)).toEqual([]);
  });

  it.each([
    {
      why: 'a live process',
      holder: (): LockHolder => ({ ...self, nonce: 'other' }),
      says: `pid ${process.pid}`,
    },
    {
      why: 'a process in another pid namespace',
      holder: (): LockHolder => ({ pid: deadPid(), pidNamespace: 'pid:[1]', nonce: 'x' }),
      says: 'pid:[1]',
    },
  ])('waits for $why, then fails Timeout naming it', async ({ holder, says }) => {
    await writeFile(lockPath, formatLockHolder(holder()));
    const lock = await makeLock('me', 150);
    const started = Date.now();
    const error = await lock.acquire().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: 'Timeout', lockPath });
    expect((error as Error).message).toContain(says);
    expect((error as Error).message).toContain(lockPath);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    await lock.dispose();
  });

  it('waits for the timeout of the call when one is given, else the options one', async () => {
    const holder = await makeLock('holder');
    await holder.acquire();
    const waiter = await makeLock('waiter', 60_000);
    await expect(waiter.acquire({ timeoutMs: 80 })).rejects.toMatchObject({
      code: 'Timeout',
      message: expect.stringContaining('gave up after 80 ms'),
    });
    await holder.release();
    await waiter.acquire({ timeoutMs: 80 });
    await waiter.release();
    await Promise.all([holder.dispose(), waiter.dispose()]);
  });

  it('never breaks a lock file it cannot read as a holder record', async () => {
    await writeFile(lockPath, 'garbage');
    const lock = await makeLock('me', 100);
    await expect(lock.acquire()).rejects.toMatchObject({
      code: 'Timeout',
      message: expect.stringContaining('held by an unreadable holder record'),
    });
    expect(await readFile(lockPath, 'utf8')).toBe('garbage');
    await lock.dispose();
  });

  it('breaks a lock file that is not a holder record when told it is stale', async () => {
    await writeFile(lockPath, '');
    const lock = await makeLock('me', 100, { unreadableRecord: 'stale' });
    await lock.acquire();
    expect(await readFile(lockPath, 'utf8')).toBe(formatLockHolder({ ...self, nonce: 'me' }));
    await lock.release();
    await lock.dispose();
    expect(await readdir(dir.path)).toEqual([]);
  });

  it('sweeps the prepared files of dead processes, with or without a record, and no other', async () => {
    const dead = deadPid();
    const files: Record<string, string> = {
      // Killed between creating its prepared file and writing the record into it.
      [`store.json.lock-${dead}-a1`]: '',
      [`store.json.lock-${dead}-b2`]: formatLockHolder({ ...self, pid: dead, nonce: 'b2' }),
      // Named as the CNI host lock named them before.
      [`store.json.lock.${dead}.c3`]: `${dead} 1 ${self.pidNamespace ?? '-'}\n`,
      // Another instance in this process: never probed, never removed.
      [`store.json.lock-${process.pid}-d4`]: '',
      [`store.json.lock-1-e5`]: '',
      [`store.json.lock-${dead}-f6`]: formatLockHolder({
        pid: dead,
        pidNamespace: 'x',
        nonce: 'f',
      }),
      'store.json': '{}',
    };
    for (const [name, text] of Object.entries(files)) await writeFile(join(dir.path, name), text);
    const reads: string[] = [];
    const spy = { ...fs, readText: (path: string) => (reads.push(path), fs.readText(path)) };
    const lock = await makeLock('me', 2_000, { fs: spy });
    await lock.sweep();
    // This process is never read about nor probed: its prepared files are in use.
    const own = join(dir.path, `store.json.lock-${process.pid}-d4`);
    expect(reads.filter((p) => p === own || p === `/proc/${process.pid}/stat`)).toEqual([]);
    expect(reads).toContain(join(dir.path, `store.json.lock-${dead}-a1`));
    expect((await readdir(dir.path)).sort()).toEqual(
      [
        'store.json',
        `store.json.lock-${process.pid}-d4`,
        'store.json.lock-1-e5',
        `store.json.lock-${dead}-f6`,
      ].sort(),
    );
  });

  it('sweeps the empty prepared file of a process SIGKILLed before it wrote its record', async () => {
    // A stand-in for a lock writer killed right after creating its prepared file.
    const script =
      "const fs = require('fs'); fs.closeSync(fs.openSync(`${process.argv[1]}-${process.pid}-9f`, 'w'));" +
      " process.stdout.write('ready'); setInterval(() => {}, 1e6);";
    const child = spawn(process.execPath, ['-e', script, lockPath], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      await once(child.stdout, 'data');
      expect(await readFile(`${lockPath}-${child.pid}-9f`, 'utf8')).toBe('');
    } finally {
      child.kill('SIGKILL');
    }
    await once(child, 'exit');
    const lock = await makeLock('me');
    await lock.sweep();
    expect(await readdir(dir.path)).toEqual([]);
  });

  describe('a cleanup that fails is a warning, the call unchanged', () => {
    /** `fs` whose unlink of a path `fails` chooses fails EIO. */
    const failingUnlink = (fails: (path: string) => boolean): LockFs => ({
      ...fs,
      unlink: (path) =>
        fails(path)
          ? Promise.reject(
              Object.assign(new Error(`EIO: i/o error, unlink '${path}'`), { code: 'EIO' }),
            )
          : fs.unlink(path),
    });
    const collect = () => {
      const warnings: FileWarning[] = [];
      return { warnings, onWarning: (w: FileWarning) => void warnings.push(w) };
    };

    it('dispose: the prepared file not removed', async () => {
      const { warnings, onWarning } = collect();
      const own = `${lockPath}-${self.pid}-me`;
      const lock = await makeLock('me', 2_000, {
        fs: failingUnlink((p) => p === own),
        onWarning,
      });
      await lock.acquire();
      await lock.release();
      await expect(lock.dispose()).resolves.toBeUndefined();
      expect(warnings).toMatchObject([
        { message: 'could not remove the prepared file', path: own, cause: { code: 'EIO' } },
      ]);
      // A file already gone is no failure.
      const quiet = collect();
      const other = await makeLock('other', 2_000, { onWarning: quiet.onWarning });
      await other.dispose();
      await other.dispose();
      expect(quiet.warnings).toEqual([]);
    });

    it('breaking a stale lock: the breaker not removed; the lock is taken', async () => {
      const { warnings, onWarning } = collect();
      await writeFile(lockPath, formatLockHolder({ ...self, pid: deadPid(), nonce: 'gone' }));
      const breaker = `${lockPath}.break`;
      const lock = await makeLock('me', 2_000, {
        fs: failingUnlink((p) => p === breaker),
        onWarning,
      });
      await lock.acquire();
      expect(await readFile(lockPath, 'utf8')).toBe(formatLockHolder({ ...self, nonce: 'me' }));
      expect(warnings).toMatchObject([
        { message: 'could not remove the lock breaker', path: breaker, cause: { code: 'EIO' } },
      ]);
      await lock.release();
      await lock.dispose();
    });

    it("sweep: a dead process's prepared file not removed", async () => {
      const { warnings, onWarning } = collect();
      const dead = join(dir.path, `store.json.lock-${deadPid()}-a1`);
      await writeFile(dead, '');
      const lock = await makeLock('me', 2_000, {
        fs: failingUnlink((p) => p === dead),
        onWarning,
      });
      await expect(lock.sweep()).resolves.toBeUndefined();
      expect(warnings).toMatchObject([
        {
          message: "could not remove the dead process's prepared file",
          path: dead,
          cause: { code: 'EIO' },
        },
      ]);
    });
  });

  it('hands the lock to a waiter when the holder releases', async () => {
    const holder = await makeLock('holder');
    const waiter = await makeLock('waiter', 20_000);
    await holder.acquire();
    let taken = false;
    const waiting = waiter.acquire().then(() => {
      taken = true;
    });
    // The waiter has tried, failed and is waiting once its prepared file exists.
    while (!(await readdir(dir.path)).some((f) => f.endsWith('-waiter'))) {
      await new Promise((r) => setImmediate(r));
    }
    expect(taken).toBe(false);
    await holder.release();
    await waiting;
    expect(await readFile(lockPath, 'utf8')).toBe(formatLockHolder({ ...self, nonce: 'waiter' }));
    await waiter.release();
    await Promise.all([holder.dispose(), waiter.dispose()]);
  });
});
