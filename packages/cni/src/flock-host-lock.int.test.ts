import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdir, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createTempDir, staticClientBinary } from '@netledger/testkit';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createFlockHostLock } from './flock-host-lock.js';
import type { FlockHostLock, HostLock } from './flock-host-lock.js';
import { silentLogger } from './logger.js';

// The host lock is flock(2) on ipam_lock_file, as calico-ipam takes it: util-linux's flock(1)
// stands in for calico-ipam (a process holding, or waiting for, flock on the same file).
let helper: string;
let dir: { path: string; remove: () => Promise<void> };
const locks: FlockHostLock[] = [];
const others: ChildProcess[] = [];
beforeAll(() => {
  helper = staticClientBinary();
});
beforeEach(async () => {
  dir = await createTempDir('netledger-flock-');
  await mkdir(join(dir.path, 'run'));
});
afterEach(async () => {
  for (const l of locks.splice(0)) await l.dispose();
  for (const c of others.splice(0)) {
    try {
      process.kill(-c.pid!, 'SIGKILL'); // flock and the command it started
    } catch {
      // already gone
    }
  }
  await dir.remove();
});

const path = (): string => join(dir.path, 'run', 'ipam.lock');
const opts = (timeoutMs = 10_000) => ({ path: path(), timeoutMs, log: silentLogger });
const hostLock = (): FlockHostLock => {
  const l = createFlockHostLock({ helper });
  locks.push(l);
  return l;
};
/** Whether another process could take flock on the file now (flock -n). */
const free = (): boolean => spawnSync('flock', ['-n', path(), 'true']).status === 0;

/**
 * flock(1) holding the lock until killed (`-o`: its command does not inherit the lock, so killing
 * flock releases it): resolves once it holds it.
 */
async function otherHolder(): Promise<ChildProcess> {
  const c = spawn('flock', ['-o', path(), 'sh', '-c', 'echo held; exec sleep 600'], {
    stdio: ['ignore', 'pipe', 'ignore'],
    detached: true,
  });
  others.push(c);
  await new Promise<void>((resolve, reject) => {
    c.stdout.once('data', () => resolve());
    c.once('exit', (code) => reject(new Error(`flock exited ${code}`)));
  });
  return c;
}

describe('createFlockHostLock', () => {
  it('holds flock(2) on the file: another flock waits, and the file stays after release', async () => {
    const lock = await hostLock().acquire(opts());
    expect(lock).toBeDefined();
    expect(free()).toBe(false);
    // A flock waiter (calico-ipam) is answered only after the release.
    const waiter = spawn('flock', [path(), 'true']);
    let waited = false;
    const done = new Promise<number | null>((resolve) =>
      waiter.once('exit', (code) => {
        waited = true;
        resolve(code);
      }),
    );
    expect(waited).toBe(false);
    await lock!.release();
    expect(await done).toBe(0);
    expect((await stat(path())).mode & 0o777).toBe(0o600);
    expect(await readdir(join(dir.path, 'run'))).toEqual(['ipam.lock']);
  });

  it("makes the lock file's missing directory (0700)", async () => {
    const nested = { ...opts(), path: join(dir.path, 'a', 'b', 'ipam.lock') };
    const lock = await hostLock().acquire(nested);
    await lock!.release();
    expect((await stat(join(dir.path, 'a', 'b'))).mode & 0o777).toBe(0o700);
  });

  it('waits for a flock held by another process (calico-ipam), and takes it once released', async () => {
    const other = await otherHolder();
    let taken: HostLock | undefined;
    const waiting = hostLock()
      .acquire(opts())
      .then((l) => (taken = l));
    // The helper is blocked in flock(2): the holder still holds it, nothing was taken.
    expect(free()).toBe(false);
    expect(taken).toBeUndefined();
    other.kill('SIGKILL');
    await waiting;
    expect(taken).toBeDefined();
    expect(free()).toBe(false);
    await taken!.release();
    expect(free()).toBe(true);
  });

  it('gives up after timeoutMs with 11, naming the holder, and takes nothing afterwards', async () => {
    const other = await otherHolder();
    const lock = hostLock();
    await expect(lock.acquire(opts(300))).rejects.toMatchObject({
      code: 11,
      message: expect.stringMatching(
        new RegExp(`^IPAM lock ${path()}: held by pid \\d+ for more than 300 ms$`),
      ) as unknown,
    });
    other.kill('SIGKILL');
    // The waiting helper was killed: once the holder is gone, the lock is free.
    await new Promise((resolve) => other.once('exit', resolve));
    expect(free()).toBe(true);
    // The next request starts a new helper.
    const again = await lock.acquire(opts());
    expect(again).toBeDefined();
    await again!.release();
  });

  it('serves one request at a time in arrival order, timeouts counting the queue', async () => {
    const lock = hostLock();
    const first = await lock.acquire(opts());
    const order: string[] = [];
    const second = lock.acquire(opts()).then((l) => {
      order.push('second');
      return l;
    });
    const third = lock.acquire(opts(200));
    await expect(third).rejects.toMatchObject({ code: 11 });
    order.push('third gave up');
    await first!.release();
    await (await second)!.release();
    expect(order).toEqual(['third gave up', 'second']);
  });

  it('goes on unlocked, with a warning, when the lock cannot be taken at all', async () => {
    const warnings: string[] = [];
    const log = { ...silentLogger, warning: (m: string) => void warnings.push(m) };
    const missing = createFlockHostLock({ helper: join(dir.path, 'no-such-helper') });
    locks.push(missing);
    expect(await missing.acquire({ ...opts(), log })).toBeUndefined();
    expect(warnings[0]).toMatch(
      /^failed to take IPAM lock .*no-such-helper.*continuing without it$/,
    );
    // The queue moved on: the next request is not stuck behind the failed one.
    expect(await missing.acquire({ ...opts(), log })).toBeUndefined();
  });

  it('releases the lock when the process holding it goes (the helper exits with it)', async () => {
    const lock = hostLock();
    expect(await lock.acquire(opts())).toBeDefined();
    expect(free()).toBe(false);
    await lock.dispose();
    expect(free()).toBe(true);
  });
});
