// Test helpers: the processes a kube-test-apiserver started, read from /proc.
import { readdirSync, readFileSync } from 'node:fs';

/** A process: its PID and command line. */
export interface ProcessInfo {
  readonly pid: number;
  readonly argv: readonly string[];
}

function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may hold spaces: the fields after it are fixed.
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

function processes(filter: (pid: number) => boolean): ProcessInfo[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter(filter)
    .flatMap((p) => {
      try {
        const argv = readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0').filter(Boolean);
        return [{ pid: p, argv }];
      } catch {
        return [];
      }
    });
}

/** The live children of `pid`, from /proc. */
export function childrenOf(pid: number): ProcessInfo[] {
  return processes((p) => parentOf(p) === pid);
}

/** Every live process with `text` in one of its arguments (e.g. a temp dir), wherever it is. */
export function processesMentioning(text: string): ProcessInfo[] {
  return processes(() => true).filter((p) => p.argv.some((a) => a.includes(text)));
}

/** Whether a process with this PID exists (a zombie counts: it has not been reaped). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
