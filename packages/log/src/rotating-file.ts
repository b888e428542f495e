// A log file many processes append to at once (each CNI call is a process; the node agent writes
// the requests it serves to the same file), rotated by size and pruned by age and count as
// calico-ipam's is (log_file_max_size, log_file_max_age, log_file_max_count), without a lock:
//
// - Each line is one write(2) on a descriptor opened O_APPEND for that line only: the kernel
//   places it at the end as one piece, so lines from different processes never interleave, and no
//   process holds a descriptor to a file between its lines.
// - A writer that finds its line would take the file past the limit renames the file to a backup
//   name it claimed first by creating it exclusively (rotation-plan.ts's names; rename(2) replaces
//   that placeholder, never another writer's backup), and only if the path still names the file
//   it measured; a writer
//   that lost that race to another sees a new file and does not rotate. rename(2) is atomic, so
//   a line written to the old file just before it moved is in the backup, never lost, and a line
//   written after goes to the new file. Two writers rotating at once can at worst move a fresh,
//   small file aside: an extra backup, no line lost.
// - Backups beyond the count or the age are removed after each rotation; a backup is never
//   written to after its rotation but by a line already under way, so removing it loses none
//   while the count keeps at least one backup.
import {
  closeSync,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { backupName, backupsToRemove, splitLogPath } from './rotation-plan.js';
import type { LogFileName } from './rotation-plan.js';

/** Options of {@link createRotatingFile}. */
export interface RotatingFileOptions {
  readonly path: string;
  /** A line that would take the file past this size goes to a new file (a line alone may be larger). */
  readonly maxSizeBytes: number;
  /** Backups kept at most (at least 1). */
  readonly maxCount: number;
  /** Backups rotated longer ago than this are removed; 0 keeps them whatever their age. */
  readonly maxAgeMs: number;
  /** Milliseconds since the epoch, for backup names and ages (default `Date.now`). */
  readonly now?: () => number;
}

/** A log file to append lines to. */
export interface RotatingFile {
  /**
   * Appends `line` (newline included) as one write, rotating first when it would not fit.
   * Throws when the line cannot be written (the directory or file cannot be created or written);
   * a rotation or removal that fails is skipped (the line is still written).
   */
  write(line: string): void;
}

const code = (e: unknown): string | undefined => (e as NodeJS.ErrnoException).code;

/** Removes the backups beside `file` that `o` no longer keeps (another writer's removal is fine). */
function pruneBackups(file: LogFileName, o: RotatingFileOptions, nowMs: number): void {
  let names: string[];
  try {
    names = readdirSync(file.dir);
  } catch {
    return;
  }
  for (const name of backupsToRemove(file, names, { ...o, now: nowMs })) {
    try {
      unlinkSync(join(file.dir, name));
    } catch {
      // Removed by another writer's prune, or not ours to remove: either way not kept by us.
    }
  }
}

/** Removes `path` if it is still an empty placeholder. */
function rmEmpty(path: string): void {
  try {
    if (statSync(path).size === 0) unlinkSync(path);
  } catch {
    // Gone already.
  }
}

/**
 * A rotating log file at `path` (its directory is created, 0755, as calico-ipam creates it).
 * Safe for any number of processes writing the same path at once (see above).
 */
export function createRotatingFile(o: RotatingFileOptions): RotatingFile {
  if (!(o.maxSizeBytes > 0) || !(o.maxCount >= 1) || !(o.maxAgeMs >= 0))
    throw new RangeError(
      `log file ${o.path}: size and count must be positive, age not negative (got ${o.maxSizeBytes} bytes, ${o.maxCount} files, ${o.maxAgeMs} ms)`,
    );
  const now = o.now ?? Date.now;
  const file = splitLogPath(o.path);
  mkdirSync(file.dir, { recursive: true, mode: 0o755 });

  /**
   * Claims a backup name no other writer holds (created exclusively, so two rotations in one
   * millisecond never share one) and moves the file at the path onto it, if the path still names
   * `ino`; then prunes.
   */
  function rotate(ino: number): void {
    let claimed: string | undefined;
    try {
      if (statSync(o.path).ino !== ino) return; // another writer rotated it
      const at = now();
      for (let n = 0; claimed === undefined; n++) {
        const candidate = join(file.dir, backupName(file, at, n));
        try {
          closeSync(openSync(candidate, 'wx', 0o644));
          claimed = candidate;
        } catch (e) {
          if (code(e) !== 'EEXIST') throw e;
        }
      }
      renameSync(o.path, claimed); // replaces the placeholder, atomically
    } catch {
      // Moved by another writer meanwhile, or the rotation failed: the file keeps growing and
      // the next line tries again; a placeholder left empty is removed as any backup is.
      if (claimed !== undefined) rmEmpty(claimed);
      return;
    }
    pruneBackups(file, o, now());
  }

  return {
    write(line) {
      const bytes = Buffer.from(line, 'utf8');
      let fd = openSync(o.path, 'a', 0o644);
      try {
        const { size, ino } = fstatSync(fd);
        if (size > 0 && size + bytes.length > o.maxSizeBytes) {
          rotate(ino);
          closeSync(fd);
          fd = -1;
          fd = openSync(o.path, 'a', 0o644);
        }
        let off = 0;
        // One write(2) on a regular file takes it all; the loop only guards a short write.
        while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
      } finally {
        if (fd >= 0) closeSync(fd);
      }
    },
  };
}
