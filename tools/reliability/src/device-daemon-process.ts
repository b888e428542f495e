import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { execFile } from 'node:child_process';
import { DEVICE } from './workspace.js';

/** A `netledger-device serve` process inside a network namespace. */
export interface DeviceDaemonProcess {
  readonly child: ChildProcess;
  /** Its stderr so far (JSON log lines). */
  log(): string;
  /** Resolves when it next writes a log line matching `pattern`. */
  nextLog(pattern: RegExp): Promise<void>;
  /** SIGKILLs it and resolves once it is gone. */
  kill9(): Promise<void>;
}

/**
 * Starts the real daemon (`bin/netledger-device serve`) inside `ns` and resolves once it logs
 * `listening` (its API socket is in place); rejects with its log if it exits first.
 */
export async function startDeviceDaemon(o: {
  readonly ns: string;
  readonly state: string;
  readonly dataDir: string;
  readonly socket: string;
}): Promise<DeviceDaemonProcess> {
  // `ip netns exec` and the launcher both exec: the child's pid is the daemon's.
  const child = spawn(
    'ip',
    [
      'netns',
      'exec',
      o.ns,
      DEVICE,
      'serve',
      '--state',
      o.state,
      '--data-dir',
      o.dataDir,
      '--socket',
      o.socket,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  const watchers = new Set<{ pattern: RegExp; resolve: () => void }>();
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    for (const w of [...watchers]) {
      if (w.pattern.test(d)) {
        watchers.delete(w);
        w.resolve();
      }
    }
  });
  await new Promise<void>((resolve, reject) => {
    const onExit = (code: number | null): void =>
      reject(new Error(`netledger-device serve exited ${code} before listening: ${log}`));
    child.once('exit', onExit);
    child.stderr.on('data', (d: string) => {
      log += d;
      if (/"msg":"listening"/.test(log)) {
        child.off('exit', onExit);
        resolve();
      }
    });
  });
  return {
    child,
    log: () => log,
    nextLog: (pattern) =>
      new Promise((resolve) => {
        watchers.add({ pattern, resolve });
      }),
    kill9: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await gone;
    },
  };
}

/** What a client verb (`netledger-device start|teardown NAME --output json`) answered. */
export interface DeviceVerbResult {
  /** 0 done, 1 refused, 3 daemon unreachable (or a host failure). */
  readonly code: number;
  readonly out: unknown;
  readonly stderr: string;
}

/** Runs one client verb against the daemon's socket, as an LXC hook does. */
export function runDeviceVerb(
  verb: 'start' | 'teardown' | 'leases',
  o: { readonly container?: string; readonly socket: string },
): Promise<DeviceVerbResult> {
  const args = [verb, ...(o.container === undefined ? [] : [o.container])];
  return new Promise((resolve) => {
    execFile(
      DEVICE,
      [...args, '--socket', o.socket, '--output', 'json'],
      { encoding: 'utf8' },
      (error, stdout, stderr) => {
        let out: unknown;
        try {
          out = JSON.parse(stdout);
        } catch {
          out = undefined;
        }
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
        resolve({ code, out, stderr });
      },
    );
  });
}
