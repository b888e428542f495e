import { randomBytes, randomUUID } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import { FileLockError, createFileLock, currentLockHolder, safeWarner } from '@netledger/file-lock';
import type { OnFileWarning } from '@netledger/file-lock';
import { IpamError } from '@netledger/ipam-core';
import { errnoOf, toUnavailable } from './fs-errors.js';
import { readRegularFile } from './read-regular-file.js';
import { planRepair } from './repair-plan.js';
import type { LostKey, RepairMode, RepairPlan } from './repair-plan.js';
import { serializeStoreDocument } from './store-document.js';
import { PREVIOUS_SUFFIX, commitStoreFile, sweepTempFiles } from './store-file.js';
import { threadPoolFs } from './store-fs.js';

/** Options for {@link repairFileDatastore}. */
export interface RepairFileDatastoreOptions {
  /** The store file. */
  readonly path: string;
  /**
   * `auto` (default): the previous generation when it checks, else salvage; `previous`: only the
   * previous generation; `salvage`: every record of the damaged file that checks.
   */
  readonly mode?: RepairMode;
  /** Report what would be done, change nothing (default false). */
  readonly dryRun?: boolean;
  /** How long to wait for the store lock before refusing (default 1 000 ms). */
  readonly lockTimeoutMs?: number;
  /** The time that names the damaged file kept aside (default: now). */
  readonly now?: () => Date;
  /**
   * Told of a cleanup that failed without failing the repair (the lock not released, a file handle
   * not closed, a temp file left), as the store's own `onWarning` is. Default: nothing is told.
   */
  readonly onWarning?: OnFileWarning;
}

/** What {@link repairFileDatastore} did (or, with `dryRun`, would do). */
export interface RepairReport {
  readonly path: string;
  /** `none`: the store checks in full, nothing was changed. */
  readonly action: 'none' | 'restored-previous' | 'salvaged';
  readonly dryRun: boolean;
  /** Why the file was refused. */
  readonly problem?: string;
  /** Where the damaged file was kept (a hard link: never overwritten, never removed). */
  readonly keptAs?: string;
  /** How many objects the repaired store holds. */
  readonly objects?: number;
  /** The repaired store's revision. */
  readonly revision?: number;
  /** Every key lost, and why. */
  readonly lost?: readonly LostKey[];
  /** False when the damaged file could not be read to its end: more keys may be lost than named. */
  readonly complete?: boolean;
  /**
   * The store file was missing and its previous generation was restored: the changes of the
   * missing file's last write, if any, are lost and cannot be named.
   */
  readonly missing?: boolean;
}

/**
 * The repair plan for the store at `path` as its files are now: the store file and its previous
 * generation, each read only if it is a regular file (a symbolic link or anything else is
 * refused, `InvalidArgument`). Reads only.
 */
async function planFromFiles(
  path: string,
  mode: RepairMode,
  warn: OnFileWarning,
): Promise<RepairPlan> {
  const previousPath = `${path}${PREVIOUS_SUFFIX}`;
  const text = await readRegularFile(path, 'repair it', warn);
  const previousText = await readRegularFile(previousPath, `repair ${path} from it`, warn);
  return planRepair({
    path,
    text,
    mode,
    newStoreId: randomUUID(),
    ...(previousText !== undefined && { previous: { path: previousPath, text: previousText } }),
  });
}

/** `datastore.json.corrupt-20260102T030405Z`: where the damaged file is kept. */
const asideName = (path: string, now: Date): string =>
  `${path}.corrupt-${now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')}`;

/** Keeps the damaged store file as `keptAs` (a hard link); never replaces an existing file. */
async function keepAside(path: string, keptAs: string): Promise<void> {
  await threadPoolFs.link(path, keptAs).catch((e: unknown) => {
    if (errnoOf(e) === 'EEXIST') {
      throw new IpamError('AlreadyExists', `${keptAs}: already exists; repair again later`, {
        identifier: keptAs,
      });
    }
    throw toUnavailable(path, `keeping the damaged file as ${keptAs}`, e);
  });
}

/**
 * Runs `task` holding the store lock; a live holder past the timeout is a refusal. A lock that
 * cannot be released afterwards is a warning (others wait for it until this process exits).
 */
async function underStoreLock<T>(
  { path, timeoutMs, warn }: { path: string; timeoutMs: number; warn: OnFileWarning },
  task: () => Promise<T>,
): Promise<T> {
  const lock = createFileLock({
    fs: threadPoolFs,
    lockPath: `${path}.lock`,
    timeoutMs,
    holder: await currentLockHolder(threadPoolFs, randomBytes(8).toString('hex')),
    onWarning: warn,
  });
  try {
    await lock.acquire();
  } catch (e) {
    await lock.dispose();
    if (e instanceof FileLockError && e.code === 'Timeout') {
      throw new IpamError(
        'Unavailable',
        `${path}: refusing to repair while another process holds the store lock (${e.message}); stop the processes using the store, then repair`,
        { identifier: e.lockPath },
      );
    }
    throw toUnavailable(path, 'locking', e instanceof FileLockError ? e.cause : e);
  }
  try {
    return await task();
  } finally {
    await lock
      .release()
      .catch((cause: unknown) =>
        warn({ message: 'could not release the datastore lock', path: `${path}.lock`, cause }),
      );
    await lock.dispose();
  }
}

/**
 * Repairs a file store that no longer opens. Acts only on a regular file it can identify as a
 * store, or on a missing one whose previous generation checks: a symbolic link, a directory,
 * anything but a regular file (the path or its `.prev`), and a file that shows no sign of being a
 * store are refused (`InvalidArgument` naming the path) before anything is created beside it.
 * Then, under the store lock (refused, `Unavailable`, while a live process holds it past
 * `lockTimeoutMs`): checks the file in full, its seal included (a good store is left alone,
 * action `none`); otherwise rebuilds it from the previous generation (`<path>.prev`) or from
 * every record of the damaged file that checks (see `planRepair`), keeps the damaged file aside
 * as `<path>.corrupt-<time>` (a hard link: it is never overwritten; an existing name fails
 * `AlreadyExists`), and writes the repaired store with the store's crash-safe commit. A missing
 * store file is restored from a good previous generation. Returns the report, naming every key
 * lost. Throws `DoesNotExist` when there is neither a store file nor a previous generation, and
 * `CorruptValue` for `previous` without a good previous generation; either way nothing changes.
 */
export async function repairFileDatastore(
  options: RepairFileDatastoreOptions,
): Promise<RepairReport> {
  const path = resolve(options.path);
  const dryRun = options.dryRun === true;
  const mode = options.mode ?? 'auto';
  const fs = threadPoolFs;
  const warn = safeWarner(options.onWarning);
  // Refusals first, before the lock creates files next to a path that may be no store at all.
  await planFromFiles(path, mode, warn);
  const timeoutMs = options.lockTimeoutMs ?? 1_000;
  return underStoreLock({ path, timeoutMs, warn }, async () => {
    // Again under the lock: a process may have written the store since.
    const plan = await planFromFiles(path, mode, warn);
    if (plan.action === 'none') return { path, action: 'none', dryRun };
    const report = {
      path,
      action: plan.action,
      dryRun,
      problem: plan.problem,
      objects: plan.snapshot.entries.size,
      revision: plan.snapshot.revision,
      lost: plan.lost,
      complete: plan.complete,
      ...(plan.missing && { missing: true }),
    };
    if (dryRun) return report;
    const keptAs = plan.missing ? undefined : asideName(path, options.now?.() ?? new Date());
    if (keptAs !== undefined) await keepAside(path, keptAs);
    await sweepTempFiles(fs, path, warn);
    const dirHandle = await fs.open(dirname(path), 'r').catch((e: unknown) => {
      throw toUnavailable(path, 'opening the directory', e);
    });
    try {
      const written = await commitStoreFile({
        fs,
        path,
        dirHandle,
        contents: serializeStoreDocument(plan.snapshot),
        warn,
      });
      await written.handle.close();
    } finally {
      // The repair's outcome stands; a directory handle that fails to close is a warning.
      await dirHandle
        .close()
        .catch((cause: unknown) =>
          warn({ message: 'could not close the directory handle of', path: dirname(path), cause }),
        );
    }
    return { ...report, ...(keptAs !== undefined && { keptAs }) };
  });
}
