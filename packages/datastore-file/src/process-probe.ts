import type { LockHolder, ProcessProbe } from './lock-holder.js';
import { parseProcStat } from './lock-holder.js';
import type { StoreFs } from './store-fs.js';

const errno = (e: unknown): string | undefined => (e as NodeJS.ErrnoException | undefined)?.code;

/** Looks a pid up with `kill(pid, 0)` and, where there is one, `/proc/<pid>/stat`. */
export async function probeProcess(fs: StoreFs, pid: number): Promise<ProcessProbe> {
  try {
    process.kill(pid, 0);
  } catch (e) {
    // EPERM: it exists but belongs to another user.
    if (errno(e) !== 'EPERM') return { exists: false };
  }
  try {
    const stat = parseProcStat(await fs.readText(`/proc/${pid}/stat`));
    return stat ? { exists: true, ...stat } : { exists: true };
  } catch (e) {
    return errno(e) === 'ENOENT' && process.platform === 'linux'
      ? { exists: false }
      : { exists: true };
  }
}

/** This process as a lock holder (start time and pid namespace where `/proc` has them). */
export async function currentLockHolder(fs: StoreFs, nonce: string): Promise<LockHolder> {
  const probe = await probeProcess(fs, process.pid);
  const pidNamespace = await fs.readlink('/proc/self/ns/pid').catch(() => undefined);
  return {
    pid: process.pid,
    nonce,
    ...(probe.startTime && { startTime: probe.startTime }),
    ...(pidNamespace && { pidNamespace }),
  };
}
