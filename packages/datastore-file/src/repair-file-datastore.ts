import { randomBytes, randomUUID } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import { FileLockError, createFileLock, currentLockHolder } from '@netledger/file-lock';
import { IpamError } from '@netledger/ipam-core';
import { errnoOf, toUnavailable } from './fs-errors.js';
import { planRepair } from './repair-plan.js';
import type { LostKey, RepairMode } from './repair-plan.js';
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
}

const readIfThere = async (path: string): Promise<string | undefined> => {
  try {
    return await threadPoolFs.readText(path);
  } catch (e) {
    if (errnoOf(e) === 'ENOENT') return undefined;
    throw toUnavailable(path, 'reading', e);
  }
};

/** `datastore.json.corrupt-20260102T030405Z`: where the damaged file is kept. */
const asideName = (path: string, now: Date): string =>
  `${path}.corrupt-${now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')}`;

/** Runs `task` holding the store lock; a live holder past the timeout is a refusal. */
async function underStoreLock<T>(
  path: string,
  timeoutMs: number,
  task: () => Promise<T>,
): Promise<T> {
  const lock = createFileLock({
    fs: threadPoolFs,
    lockPath: `${path}.lock`,
    timeoutMs,
    holder: await currentLockHolder(threadPoolFs, randomBytes(8).toString('hex')),
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
    await lock.release().catch(() => undefined);
    await lock.dispose();
  }
}

/**
 * Repairs a file store that no longer opens. Under the store lock (refused, `Unavailable`, while
 * a live process holds it past `lockTimeoutMs`): checks the file in full (a good store is left
 * alone, action `none`); otherwise rebuilds it from the previous generation (`<path>.prev`) or
 * from every record of the damaged file that checks (see `planRepair`), keeps the damaged file
 * aside as `<path>.corrupt-<time>` (a hard link: it is never overwritten; an existing name fails
 * `AlreadyExists`), and writes the repaired store with the store's crash-safe commit. Returns the
 * report, naming every key lost. Throws `DoesNotExist` when there is no store file, and
 * `CorruptValue` for `previous` without a good previous generation; either way nothing changes.
 */
export async function repairFileDatastore(
  options: RepairFileDatastoreOptions,
): Promise<RepairReport> {
  const path = resolve(options.path);
  const dryRun = options.dryRun === true;
  const fs = threadPoolFs;
  return underStoreLock(path, options.lockTimeoutMs ?? 1_000, async () => {
    const text = await readIfThere(path);
    if (text === undefined) {
      throw new IpamError('DoesNotExist', `${path}: no datastore file to repair`, {
        identifier: path,
      });
    }
    const previousPath = `${path}${PREVIOUS_SUFFIX}`;
    const previousText = await readIfThere(previousPath);
    const plan = planRepair({
      path,
      text,
      mode: options.mode ?? 'auto',
      newStoreId: randomUUID(),
      ...(previousText !== undefined && { previous: { path: previousPath, text: previousText } }),
    });
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
    };
    if (dryRun) return report;
    const keptAs = asideName(path, options.now?.() ?? new Date());
    await fs.link(path, keptAs).catch((e: unknown) => {
      if (errnoOf(e) === 'EEXIST') {
        throw new IpamError('AlreadyExists', `${keptAs}: already exists; repair again later`, {
          identifier: keptAs,
        });
      }
      throw toUnavailable(path, `keeping the damaged file as ${keptAs}`, e);
    });
    await sweepTempFiles(fs, path);
    const dirHandle = await fs.open(dirname(path), 'r').catch((e: unknown) => {
      throw toUnavailable(path, 'opening the directory', e);
    });
    try {
      const written = await commitStoreFile({
        fs,
        path,
        dirHandle,
        contents: serializeStoreDocument(plan.snapshot),
      });
      await written.handle.close();
    } finally {
      await dirHandle.close().catch(() => undefined);
    }
    return { ...report, keptAs };
  });
}
