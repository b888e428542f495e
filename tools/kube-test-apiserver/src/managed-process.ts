import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';

/** How a child process ended. */
interface ProcessExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** A child process whose output goes to a log file. */
export interface ManagedProcess {
  readonly name: string;
  readonly pid: number | undefined;
  readonly logFile: string;
  /** Resolves when the process has exited (for whatever reason). */
  readonly exited: Promise<ProcessExit>;
  /** Whether it has exited. */
  hasExited(): boolean;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once it has exited. Safe to call twice. */
  stop(graceMs: number): Promise<ProcessExit>;
  /** The last lines of its log, for error messages. */
  logTail(lines?: number): string;
}

/** Options for {@link startProcess}. */
export interface StartProcessOptions {
  readonly name: string;
  readonly bin: string;
  readonly args: readonly string[];
  readonly logFile: string;
  readonly env: NodeJS.ProcessEnv;
}

/**
 * Spawns `bin` with stdout and stderr appended to `logFile` and no stdin. A spawn failure
 * (ENOENT) shows as an exit with code 127 and the error in the log.
 */
export function startProcess(options: StartProcessOptions): ManagedProcess {
  const fd = openSync(options.logFile, 'a');
  const child = spawn(options.bin, options.args, {
    stdio: ['ignore', fd, fd],
    env: options.env,
  });
  closeSync(fd);
  let exit: ProcessExit | undefined;
  let spawnError: string | undefined;
  const exited = new Promise<ProcessExit>((resolve) => {
    child.once('error', (e) => {
      spawnError = e.message;
      exit = { code: 127, signal: null };
      resolve(exit);
    });
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      resolve(exit);
    });
  });
  const logTail = (lines = 25): string => {
    let text: string;
    try {
      text = readFileSync(options.logFile, 'utf8');
    } catch {
      text = '';
    }
    const tail = text.trimEnd().split('\n').slice(-lines).join('\n');
    return spawnError ? `${tail}\n${options.bin}: ${spawnError}` : tail;
  };
  return {
    name: options.name,
    pid: child.pid,
    logFile: options.logFile,
    exited,
    hasExited: () => exit !== undefined,
    async stop(graceMs) {
      if (exit) return exit;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
    logTail,
  };
}
