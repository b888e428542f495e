// The host-wide IPAM lock, as calico-ipam takes it: flock(2) on `ipam_lock_file`, a file nobody
// removes, so a node running calico-ipam and netledger-ipam on one lock file serialises them
// (projectcalico/calico cni-plugin/pkg/ipamplugin, acquireIPAMLockBestEffort). Node.js has no
// flock(2): the lock is held by the static client's lock helper (`netledger-ipam lock-helper`,
// apps/cni-plugin/client/lock.go), a child process that takes and releases it on request and
// whose exit releases it, so a process that dies holding the lock never leaves it held.
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';
import { CniError, CniErrorCode } from './cni-error.js';
import type { Logger } from './logger.js';

/** A held host lock. */
export interface HostLock {
  release(): Promise<void>;
}

/** What one request asks of the host lock. */
export interface HostLockOptions {
  /** The lock file (`ipam_lock_file`). */
  readonly path: string;
  /** How long to wait, behind this process's other requests and the lock's holder, before 11. */
  readonly timeoutMs: number;
  readonly log: Logger;
}

/** Takes the host lock: undefined when it cannot be taken at all (the caller goes on unlocked). */
export type AcquireHostLock = (options: HostLockOptions) => Promise<HostLock | undefined>;

/** The host lock of one process, and the helper it keeps. */
export interface FlockHostLock {
  readonly acquire: AcquireHostLock;
  /** Stops the helper (releasing a lock still held); call when no request will take it again. */
  dispose(): Promise<void>;
}

/** The lock helper: the static client's `lock-helper` verb, answering one line per command. */
interface Helper {
  ask(line: string): Promise<string>;
  kill(): void;
  end(): Promise<void>;
}

function startHelper(path: string): Helper {
  const child: ChildProcessWithoutNullStreams = spawn(path, ['lock-helper'], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const waiting: ((line: string) => void)[] = [];
  let gone: string | undefined;
  const fail = (why: string): void => {
    gone ??= why;
    for (const answer of waiting.splice(0)) answer(`error ${why}`);
  };
  createInterface({ input: child.stdout }).on('line', (line) => waiting.shift()?.(line));
  child.on('error', (e) => fail(`the lock helper ${path} failed: ${e.message}`));
  child.on('exit', (code, signal) => fail(`the lock helper exited (${signal ?? code})`));
  child.stdin.on('error', () => undefined); // its exit says why
  child.stderr.resume();
  return {
    ask: (line) =>
      new Promise((resolve) => {
        if (gone !== undefined) return resolve(`error ${gone}`);
        waiting.push(resolve);
        child.stdin.write(`${line}\n`);
      }),
    kill: () => child.kill('SIGKILL'),
    end: () =>
      new Promise((resolve) => {
        if (gone !== undefined) return resolve();
        child.once('exit', () => resolve());
        child.stdin.end();
      }),
  };
}

/** The pids holding a flock(2) on `path`, from /proc/locks (empty when they cannot be read). */
function flockHolders(path: string): number[] {
  try {
    const { dev, ino } = statSync(path);
    const id = `:${ino}`;
    const major = Math.floor(dev / 256) & 0xfff;
    const minor = (dev & 0xff) | ((dev >> 12) & 0xfff00);
    const file = `${major.toString(16).padStart(2, '0')}:${minor.toString(16).padStart(2, '0')}${id}`;
    return readFileSync('/proc/locks', 'utf8')
      .split('\n')
      .map((l) => l.split(/\s+/))
      .filter((f) => f[1] === 'FLOCK' && f.includes(file) && !f.includes('->'))
      .map((f) => Number(f[4]));
  } catch {
    return [];
  }
}

/**
 * The host lock of a process (the node agent, or the plugin's fallback): flock(2) on the request's
 * `ipam_lock_file` through the lock helper at `helper`, one request at a time in arrival order.
 * A request waits at most its `timeoutMs` in all (behind this process's other requests, then for
 * the lock's holder), then fails `TryAgainLater` (11) naming the holder's pid when /proc/locks
 * shows it; the helper that was waiting is killed, so no lock is taken after the caller gave up.
 * Best effort like calico-ipam's: a lock that cannot be taken at all (its directory cannot be
 * made, the file cannot be opened, the helper cannot run) is logged and the request goes on
 * unlocked; a release that fails is logged, never thrown (the helper's exit releases the lock).
 * The lock file is created 0600 and never removed.
 */
export function createFlockHostLock(options: { readonly helper: string }): FlockHostLock {
  let helper: Helper | undefined;
  let tail: Promise<void> = Promise.resolve();

  const acquire: AcquireHostLock = async ({ path, timeoutMs, log }) => {
    const previous = tail;
    let leave!: () => void;
    tail = previous.then(() => new Promise<void>((resolve) => (leave = resolve)));
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    const giveUp = (): never => {
      const holders = flockHolders(path);
      const by = holders.length > 0 ? ` by pid ${holders.join(', ')}` : '';
      throw new CniError(
        CniErrorCode.TryAgainLater,
        `IPAM lock ${path}: held${by} for more than ${timeoutMs} ms`,
      );
    };
    try {
      if ((await Promise.race([previous.then(() => 'turn' as const), timedOut])) === 'timeout') {
        void previous.then(() => leave());
        giveUp();
      }
      try {
        mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      } catch (e) {
        log.warning(`cannot create IPAM lock ${path} (${errno(e)}): continuing without it`);
        leave();
        return undefined;
      }
      const h = (helper ??= startHelper(options.helper));
      const answer = await Promise.race([h.ask(`lock ${path}`), timedOut]);
      if (answer === 'timeout') {
        h.kill();
        helper = undefined;
        leave();
        giveUp();
      }
      if (answer !== 'locked') {
        log.warning(
          `failed to take IPAM lock ${path} (${answer.replace(/^error /, '')}): continuing without it`,
        );
        if (!answer.startsWith('error a lock')) helper = undefined;
        leave();
        return undefined;
      }
      return {
        release: async () => {
          const released = await h.ask('unlock');
          if (released !== 'unlocked') {
            log.warning(`failed to release IPAM lock ${path} (${released}): stopping its helper`);
            h.kill();
            if (helper === h) helper = undefined;
          }
          leave();
        },
      };
    } finally {
      clearTimeout(timer);
    }
  };

  return {
    acquire,
    async dispose() {
      const h = helper;
      helper = undefined;
      await h?.end();
    },
  };
}

const errno = (e: unknown): string => (e as NodeJS.ErrnoException).code ?? String(e);
