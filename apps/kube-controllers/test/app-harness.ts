// Runs the built netledger-kube-controllers bundle as a child process and follows its JSON log.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { createInterface } from 'node:readline';

export interface LogLine {
  readonly ts: string;
  readonly level: string;
  readonly msg: string;
  readonly [field: string]: unknown;
}

/** A running replica. */
export interface Replica {
  readonly name: string;
  readonly child: ChildProcess;
  readonly lines: LogLine[];
  readonly events: EventEmitter;
  stderr(): string;
  /** The first log line (already seen or to come) matching. */
  waitFor(match: (l: LogLine) => boolean, what: string, timeoutMs?: number): Promise<LogLine>;
  /** Resolves with the exit code (or signal) once it has exited. */
  readonly exited: Promise<number | string>;
  kill(signal: NodeJS.Signals): void;
}

export function startReplica(args: {
  name: string;
  bundle: string;
  argv: readonly string[];
  env: Record<string, string>;
}): Replica {
  const child = spawn(process.execPath, [args.bundle, ...args.argv], {
    env: { PATH: process.env.PATH ?? '', ...args.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: LogLine[] = [];
  const events = new EventEmitter();
  let err = '';
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  createInterface({ input: child.stdout }).on('line', (text) => {
    let line: LogLine;
    try {
      line = JSON.parse(text) as LogLine;
    } catch {
      line = { ts: '', level: 'raw', msg: text };
    }
    lines.push(line);
    events.emit('line', line);
  });
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => {
      events.emit('exit');
      resolve(signal ?? code ?? -1);
    }),
  );
  return {
    name: args.name,
    child,
    lines,
    events,
    stderr: () => err,
    exited,
    kill: (signal) => void child.kill(signal),
    waitFor(match, what, timeoutMs = 60_000) {
      const seen = lines.find(match);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          cleanup();
          reject(
            new Error(
              `${args.name}: timed out waiting for ${what}\nstderr: ${err}\nlog tail:\n${lines
                .slice(-15)
                .map((l) => JSON.stringify(l))
                .join('\n')}`,
            ),
          );
        }, timeoutMs);
        const onLine = (l: LogLine): void => {
          if (!match(l)) return;
          cleanup();
          resolve(l);
        };
        const onExit = (): void => {
          cleanup();
          reject(
            new Error(
              `${args.name} exited while waiting for ${what}\nstderr: ${err}\nlog tail:\n${lines
                .slice(-15)
                .map((l) => JSON.stringify(l))
                .join('\n')}`,
            ),
          );
        };
        const cleanup = (): void => {
          clearTimeout(timer);
          events.off('line', onLine);
          events.off('exit', onExit);
        };
        events.on('line', onLine);
        events.once('exit', onExit);
      });
    },
  };
}

/** Parses the Prometheus text exposition into `name{labels}` -> value. */
export function parseExposition(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}
