// The files of one lock instance: the lock file, this instance's prepared file (its holder record,
// hard-linked to take the lock), and the reads, links and removals the lock is made of.
import type { FileLockError } from './file-lock-error.js';
import { lockIoError } from './file-lock-error.js';
import type { OnFileWarning } from './file-warning.js';
import { safeWarner } from './file-warning.js';
import type { LockFs } from './lock-fs.js';
import { errnoOf } from './lock-fs.js';
import type { HolderStatus, LockHolder } from './lock-holder.js';
import { formatLockHolder, judgeHolder, parseLockHolder } from './lock-holder.js';
import { probeProcess } from './process-probe.js';

/** A lock file as read: its text and the holder record in it (undefined: not one). */
export interface SeenLock {
  readonly text: string;
  readonly holder: LockHolder | undefined;
}

/** One instance's view of its lock files. */
export interface LockFiles {
  readonly fs: LockFs;
  readonly lockPath: string;
  /** Who we are. */
  readonly self: LockHolder;
  /** This instance's prepared file. */
  readonly ownPath: string;
  readonly warn: OnFileWarning;
  /** Whether a holder is alive, judged from our pid namespace. */
  readonly judge: (h: LockHolder) => Promise<HolderStatus>;
  /** The lock file at `path`, undefined when there is none; `Io` on another read failure. */
  readonly readLock: (path: string) => Promise<SeenLock | undefined>;
  /**
   * Links the prepared file (written first if needed) to `target`: false when `target` exists;
   * a prepared file swept away meanwhile is written again, once; `Io` on another failure.
   */
  readonly tryLink: (target: string) => Promise<boolean>;
  /** Removes `path` if it still holds `text` (gone is fine); `Io` on a failed removal. */
  readonly removeIfSame: (path: string, text: string) => Promise<void>;
  /** A `catch` for a cleanup of `path`: its failure is a warning, unless the file is gone. */
  readonly unlessGone: (message: string, path: string) => (cause: unknown) => undefined;
  /** Forgets the prepared file (it was removed): the next link writes it again. */
  readonly forgetPrepared: () => void;
}

/** The lock files of `lockPath` for `self`. */
export function createLockFiles(o: {
  readonly fs: LockFs;
  readonly lockPath: string;
  readonly holder: LockHolder;
  readonly onWarning?: OnFileWarning | undefined;
}): LockFiles {
  const { fs, lockPath, holder: self } = o;
  const ownPath = `${lockPath}-${self.pid}-${self.nonce}`;
  const ownText = formatLockHolder(self);
  const warn = safeWarner(o.onWarning);
  let prepared = false;
  const ioError = (doing: string, e: unknown): FileLockError => lockIoError(lockPath, doing, e);

  const readLock = async (path: string): Promise<SeenLock | undefined> => {
    try {
      const text = await fs.readText(path);
      return { text, holder: parseLockHolder(text) };
    } catch (e) {
      if (errnoOf(e) === 'ENOENT') return undefined;
      throw ioError(`reading lock ${path}`, e);
    }
  };
  const tryLink = async (target: string): Promise<boolean> => {
    for (let attempt = 0; ; attempt++) {
      try {
        if (!prepared) {
          await fs.writeText(ownPath, ownText, { flag: 'w', mode: 0o600 });
          prepared = true;
        }
        await fs.link(ownPath, target);
        return true;
      } catch (e) {
        const code = errnoOf(e);
        if (code === 'EEXIST') return false;
        // Our prepared file was swept away as garbage: write it again, once.
        if (code === 'ENOENT' && prepared && attempt === 0) {
          prepared = false;
          continue;
        }
        throw ioError(`creating lock ${target}`, e);
      }
    }
  };
  return {
    fs,
    lockPath,
    self,
    ownPath,
    warn,
    judge: async (h) => judgeHolder(h, self.pidNamespace, await probeProcess(fs, h.pid)),
    readLock,
    tryLink,
    removeIfSame: async (path, text) => {
      const now = await readLock(path);
      if (now?.text !== text) return;
      await fs.unlink(path).catch((e: unknown) => {
        if (errnoOf(e) !== 'ENOENT') throw ioError(`removing ${path}`, e);
      });
    },
    unlessGone: (message, path) => (cause) => {
      if (errnoOf(cause) !== 'ENOENT') warn({ message, path, cause });
      return undefined;
    },
    forgetPrepared: () => {
      prepared = false;
    },
  };
}
