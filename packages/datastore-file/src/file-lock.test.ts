import { spawnSync } from 'node:child_process';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createTempDir } from '@netledger/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFileLock } from './file-lock.js';
import type { LockHolder } from './lock-holder.js';
import { formatLockHolder, judgeHolder } from './lock-holder.js';
import { currentLockHolder, probeProcess } from './process-probe.js';
import { blockingFs, threadPoolFs } from './store-fs.js';

/** A pid that certainly belonged to a process that has exited and been reaped. */
const deadPid = (): number => spawnSync(process.execPath, ['-e', '']).pid;

describe.each([
  { io: 'thread-pool', fs: threadPoolFs },
  { io: 'blocking', fs: blockingFs },
])('createFileLock ($io file calls)', ({ fs }) => {
  let dir: { path: string; remove: () => Promise<void> };
  let lockPath: string;
  let self: LockHolder;
  const judge = async (h: LockHolder) =>
    judgeHolder(h, self.pidNamespace, await probeProcess(fs, h.pid));
  const makeLock = async (nonce: string, timeoutMs = 2_000) =>
    createFileLock({
      fs,
      lockPath,
      storePath: join(dir.path, 'store.json'),
      timeoutMs,
      holder: { ...self, nonce },
      judge,
    });

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
    expect(await readFile(lockPath, 'utf8')).toContain('"nonce":"me"');
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
  ])('waits for $why, then fails Unavailable naming it', async ({ holder, says }) => {
    await writeFile(lockPath, formatLockHolder(holder()));
    const lock = await makeLock('me', 150);
    const started = Date.now();
    const error = await lock.acquire().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: 'Unavailable' });
    expect((error as Error).message).toContain(says);
    expect((error as Error).message).toContain(lockPath);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    await lock.dispose();
  });

  it('never breaks a lock file it cannot read as a holder record', async () => {
    await writeFile(lockPath, 'garbage');
    const lock = await makeLock('me', 100);
    await expect(lock.acquire()).rejects.toMatchObject({ code: 'Unavailable' });
    expect(await readFile(lockPath, 'utf8')).toBe('garbage');
    await lock.dispose();
  });
});
