import { spawnSync } from 'node:child_process';
import { readlinkSync } from 'node:fs';
import { readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createTempDir } from '@netledger/testkit';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { acquireHostLock, reusedHostLock } from './host-lock.js';
import { silentLogger } from './logger.js';

let dir: { path: string; remove: () => Promise<void> };
beforeEach(async () => {
  dir = await createTempDir('netledger-cni-lock-');
});
afterEach(async () => {
  await dir.remove();
});

const opts = (timeoutMs = 2000) => ({
  path: join(dir.path, 'sub', 'ipam.lock'),
  timeoutMs,
  log: silentLogger,
});

describe('acquireHostLock', () => {
  it('serialises holders and leaves no files behind', async () => {
    const sub = join(dir.path, 'sub');
    const first = await acquireHostLock(opts());
    expect(first).toBeDefined();
    const held = await readFile(opts().path, 'utf8'); // the first holder's record
    const before = await readdir(sub);
    let second = false;
    const waiting = acquireHostLock(opts()).then((l) => {
      second = true;
      return l;
    });
    // The second holder has written its record and tried the lock: its prepared file is there.
    await vi.waitFor(async () => expect((await readdir(sub)).length).toBe(before.length + 1));
    expect(second).toBe(false);
    expect(await readFile(opts().path, 'utf8')).toBe(held);
    await first!.release();
    const l2 = await waiting;
    expect(second).toBe(true);
    const taken = await readFile(opts().path, 'utf8');
    expect(taken).not.toBe(held); // the second holder's own record (another nonce)
    expect(taken.split(' ')[0]).toBe(String(process.pid));
    await l2!.release();
    expect(await readdir(sub)).toEqual([]);
  });

  it('writes pid, start time, pid namespace and a nonce into the lock', async () => {
    const l = await acquireHostLock(opts());
    const text = await readFile(opts().path, 'utf8');
    expect(text).toMatch(new RegExp(`^${process.pid} \\d+ pid:\\[\\d+\\] [0-9a-f]{8}\\n$`));
    await l!.release();
  });

  it('breaks the lock of a dead process and of an unreadable record', async () => {
    const dead = spawnSync('true').pid;
    const pidns = readlinkSync('/proc/self/ns/pid');
    await acquireHostLock(opts()).then((l) => l!.release());
    await writeFile(opts().path, `${dead} 12345 ${pidns}\n`);
    const l = await acquireHostLock(opts(500));
    expect(l).toBeDefined();
    await l!.release();
    await writeFile(opts().path, 'garbage');
    const l2 = await acquireHostLock(opts(500));
    expect(l2).toBeDefined();
    await l2!.release();
  });

  it('clears what dead invocations left when it breaks their stale lock', async () => {
    const dead = spawnSync('true').pid;
    const pidns = readlinkSync('/proc/self/ns/pid');
    const sub = join(dir.path, 'sub');
    await acquireHostLock(opts()).then((l) => l!.release());
    await writeFile(opts().path, `${dead} 12345 ${pidns}\n`);
    // Prepared files of invocations killed while waiting: before and since the shared lock.
    await writeFile(join(sub, `ipam.lock.${dead}.0a1b2c3d`), `${dead} 12345 ${pidns}\n`);
    await writeFile(join(sub, `ipam.lock-${dead}-4e5f6a7b`), '');
    const l = await acquireHostLock(opts(500));
    await l!.release();
    expect(await readdir(sub)).toEqual([]);
  });

  it('gives up on a live holder with TryAgainLater (11) naming its pid', async () => {
    const held = await acquireHostLock(opts());
    await expect(acquireHostLock(opts(100))).rejects.toMatchObject({
      code: 11,
      message: expect.stringContaining(`held by pid ${process.pid}; gave up after 100 ms`),
    });
    await held!.release();
  });

  it('proceeds without a lock where none can be created (best effort)', async () => {
    const warnings: string[] = [];
    const log = { ...silentLogger, warning: (m: string) => void warnings.push(m) };
    await writeFile(join(dir.path, 'file'), '');
    const path = join(dir.path, 'file', 'ipam.lock');
    expect(await acquireHostLock({ path, timeoutMs: 100, log })).toBeUndefined();
    expect(warnings[0]).toContain('continuing without it');
  });
});

describe('reusedHostLock', () => {
  it('serialises with acquireHostLock, keeps one prepared file, and leaves none once disposed', async () => {
    const reused = reusedHostLock();
    try {
      const first = await reused.acquire(opts());
      const inode = (await stat(opts().path)).ino;
      await expect(acquireHostLock(opts(100))).rejects.toMatchObject({ code: 11 });
      await first!.release();
      const other = await acquireHostLock(opts());
      await expect(reused.acquire(opts(100))).rejects.toMatchObject({
        code: 11,
        message: expect.stringContaining('gave up after 100 ms'),
      });
      await other!.release();
      const again = await reused.acquire(opts());
      // The same prepared file (hence inode) is linked again: no new holder record per request.
      expect((await stat(opts().path)).ino).toBe(inode);
      expect(await readFile(opts().path, 'utf8')).toMatch(new RegExp(`^${process.pid} `));
      await again!.release();
      expect(await readdir(join(dir.path, 'sub'))).toHaveLength(1);
    } finally {
      await reused.dispose();
    }
    expect(await readdir(join(dir.path, 'sub'))).toEqual([]);
  });
});
