import type { LockFs } from './lock-fs.js';
import { errnoOf } from './lock-fs.js';
import type { LockHolder, ProcessProbe } from './lock-holder.js';
import { parseProcStat } from './lock-holder.js';

/** Looks a pid up with `kill(pid, 0)` and, where there is one, `/proc/<pid>/stat`. */
export async function probeProcess(fs: LockFs, pid: number): Promise<ProcessProbe> {
  try {
    process.kill(pid, 0);
  } catch (e) {
    // EPERM: it exists but belongs to another user.
    if (errnoOf(e) !== 'EPERM') return { exists: false };
  }
  try {
    const stat = parseProcStat(await fs.readText(`/proc/${pid}/stat`));
    return stat ? { exists: true, ...stat } : { exists: true };
  } catch (e) {
    return errnoOf(e) === 'ENOENT' && process.platform === 'linux'
      ? { exists: false }
      : { exists: true };
  }
}

/** This process as a lock holder (start time and pid namespace where `/proc` has them). */
export async function currentLockHolder(fs: LockFs, nonce: string): Promise<LockHolder> {
  // Optional fields: without /proc (another OS, a sandbox) the record simply lacks them, and
  // others judge this holder by its pid alone (dead once no process has that pid).
  const stat = await fs.readText('/proc/self/stat').then(parseProcStat, () => undefined);
  const pidNamespace = await fs.readlink('/proc/self/ns/pid').catch(() => undefined);
  return {
    pid: process.pid,
    nonce,
    ...(stat && { startTime: stat.startTime }),
    ...(pidNamespace && { pidNamespace }),
  };
}
