// The process table, read from /proc: what `down` needs to stop exactly the processes `up` made.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** Fields of /proc/<pid>/stat after the command name (which may hold spaces and parentheses). */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/**
 * The start time of process `pid` (clock ticks since boot, field 22 of /proc/<pid>/stat), which
 * with the PID names one process for its whole life; undefined when there is no such process.
 */
export function processStartTime(pid: number): string | undefined {
  return statFields(pid)?.[19];
}

/** Whether `pid` is the process that started at `startTime` and has not exited (zombies have). */
export function isSameLiveProcess(pid: number, startTime: string): boolean {
  const fields = statFields(pid);
  return fields !== undefined && fields[19] === startTime && fields[0] !== 'Z';
}

/** A live process: its PID and command line. */
export interface ProcessInfo {
  readonly pid: number;
  readonly argv: readonly string[];
}

/** Every process (but this one) with `text` in an argument or in its executable's path. */
export function processesMentioning(text: string): ProcessInfo[] {
  const found: ProcessInfo[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const argv = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').filter(Boolean);
      let exe = '';
      try {
        exe = readlinkSync(`/proc/${name}/exe`);
      } catch {
        // a kernel thread, or gone
      }
      if (argv.some((a) => a.includes(text)) || exe.includes(text)) {
        if (statFields(Number(name))?.[0] !== 'Z') found.push({ pid: Number(name), argv });
      }
    } catch {
      // exited meanwhile
    }
  }
  return found;
}
