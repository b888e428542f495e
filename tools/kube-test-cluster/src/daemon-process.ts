import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ProcessRecord } from './cluster-state.js';
import { isSameLiveProcess, processStartTime } from './proc-table.js';

/** A daemon `up` started, while `up` still runs: it can tell when the daemon dies. */
export interface StartedDaemon {
  readonly record: ProcessRecord;
  readonly logFile: string;
  /** Resolves with a description of how it ended. */
  readonly exited: Promise<string>;
  hasExited(): boolean;
  /** The last lines of its log, for error messages. */
  logTail(lines?: number): string;
}

/** The last `lines` lines of a log file ('' when there is none). */
function tailOf(logFile: string, lines = 25): string {
  try {
    return readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/**
 * Starts `bin` as a daemon: its own session (a signal to `up`'s terminal does not reach it), no
 * stdin, stdout and stderr appended to `logFile`, not waited for by `up`'s event loop. Resolves
 * once it runs, with its PID and start time; rejects when it cannot be spawned (ENOENT).
 */
export async function startDaemon(o: {
  name: string;
  bin: string;
  args: readonly string[];
  logFile: string;
  env: NodeJS.ProcessEnv;
}): Promise<StartedDaemon> {
  const fd = openSync(o.logFile, 'a');
  const child = spawn(o.bin, o.args, { detached: true, stdio: ['ignore', fd, fd], env: o.env });
  closeSync(fd);
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', (e) => reject(new Error(`${o.name} (${o.bin}): ${e.message}`)));
  });
  child.unref();
  let ended: string | undefined;
  const exited = new Promise<string>((resolve) =>
    child.once('exit', (code, signal) => {
      ended = signal ? `killed by ${signal}` : `exit status ${code}`;
      resolve(ended);
    }),
  );
  const pid = child.pid!;
  return {
    record: { name: o.name, pid, startTime: processStartTime(pid) ?? '' },
    logFile: o.logFile,
    exited,
    hasExited: () => ended !== undefined,
    logTail: (lines) => tailOf(o.logFile, lines),
  };
}

/** Resolves true once `record`'s process is gone, false if it still runs after `ms`. */
async function gone(record: ProcessRecord, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (isSameLiveProcess(record.pid, record.startTime)) {
    if (Date.now() > deadline) return false;
    await sleep(50);
  }
  return true;
}

/**
 * Stops the process of `record` if it still runs (and is that process, not another with its
 * PID): SIGTERM, SIGKILL after `graceMs`. Resolves once it has exited; false if even SIGKILL
 * did not end it within 5 s.
 */
export async function stopRecorded(record: ProcessRecord, graceMs: number): Promise<boolean> {
  if (!isSameLiveProcess(record.pid, record.startTime)) return true;
  try {
    process.kill(record.pid, 'SIGTERM');
  } catch {
    return true;
  }
  if (await gone(record, graceMs)) return true;
  try {
    process.kill(record.pid, 'SIGKILL');
  } catch {
    return true;
  }
  return gone(record, 5000);
}
