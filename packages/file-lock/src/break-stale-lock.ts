// Recovery from dead holders: breaking a stale lock under `<lockPath>.break`, and sweeping the
// prepared files dead processes left next to it.
import { basename, dirname, join } from 'node:path';
import type { LockFiles, SeenLock } from './lock-files.js';
import { parseLockHolder } from './lock-holder.js';
import { preparedFilePid } from './prepared-file.js';

/**
 * Removes the prepared files of dead processes next to the lock, this process's excepted,
 * judging a file without a record (its process died creating it) by the pid in its name.
 * Best effort: a file that cannot be read or removed is a warning, and is skipped.
 */
export async function sweepPreparedFiles(files: LockFiles): Promise<void> {
  const { fs, lockPath, self, unlessGone } = files;
  const dir = dirname(lockPath);
  const base = basename(lockPath);
  const names =
    (await fs
      .readdir(dir)
      .catch(unlessGone("could not list dead processes' prepared files in", dir))) ?? [];
  for (const name of names) {
    const pid = preparedFilePid(base, name);
    // Never probe ourselves: our own prepared files are in use.
    if (pid === undefined || pid === self.pid) continue;
    const full = join(dir, name);
    const text = await fs
      .readText(full)
      .catch(unlessGone('could not check, so left in place, the prepared file', full));
    if (text === undefined) continue;
    const recorded = parseLockHolder(text) ?? { pid, nonce: '' };
    if ((await files.judge(recorded)) === 'dead') {
      await fs
        .unlink(full)
        .catch(unlessGone("could not remove the dead process's prepared file", full));
    }
  }
}

/**
 * Breaks the stale lock `stale` if it is still the lock file, holding `<lockPath>.break` (so two
 * processes never both break a lock and remove a fresh one), then sweeps what its dead holder (or
 * others) may have left. Someone else breaking it meanwhile: nothing is done, unless that breaker
 * died, whose breaker file is then removed.
 */
export async function breakStaleLock(files: LockFiles, stale: SeenLock): Promise<void> {
  const { fs, lockPath } = files;
  const breakPath = `${lockPath}.break`;
  if (!(await files.tryLink(breakPath))) {
    // Someone else is breaking it. Its breaker is stale only if that process died in between.
    const breaker = await files.readLock(breakPath);
    if (breaker?.holder && (await files.judge(breaker.holder)) === 'dead') {
      await files.removeIfSame(breakPath, breaker.text);
    }
    return;
  }
  try {
    await files.removeIfSame(lockPath, stale.text);
  } finally {
    // Left behind, it keeps others from breaking a stale lock until this process exits.
    await fs
      .unlink(breakPath)
      .catch(files.unlessGone('could not remove the lock breaker', breakPath));
  }
  await sweepPreparedFiles(files);
}
