import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { WorkerEvent, WorkerPlan } from './worker/worker-plan.js';

/** How a host process ended and what it printed. */
export interface HostRun {
  readonly host: string;
  readonly events: WorkerEvent[];
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stderr: string;
}

/** A running host process. */
export interface RunningHost {
  readonly child: ChildProcess;
  /** Resolves when the process has exited and its output is read. */
  readonly finished: Promise<HostRun>;
}

/**
 * Starts one host worker process (`node <bundle> <plan>`), calling `onEvent` for each JSON line as
 * it arrives. Never rejects: a crash is in the result's `signal` and `stderr`.
 */
export function startHost(
  bundle: string,
  plan: WorkerPlan,
  onEvent: (e: WorkerEvent) => void = () => {},
): RunningHost {
  const child = spawn(process.execPath, [bundle, JSON.stringify(plan)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const events: WorkerEvent[] = [];
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => {
    stderr = (stderr + c.toString()).slice(-4000);
  });
  const lines = createInterface({ input: child.stdout });
  lines.on('line', (line) => {
    let e: WorkerEvent;
    try {
      e = JSON.parse(line) as WorkerEvent;
    } catch {
      stderr += `\n(stdout) ${line}`;
      return;
    }
    events.push(e);
    onEvent(e);
  });
  const finished = new Promise<HostRun>((resolve) => {
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let closed = false;
    const settle = (): void => {
      if (exit && closed) resolve({ host: plan.host, events, ...exit, stderr });
    };
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      settle();
    });
    lines.once('close', () => {
      closed = true;
      settle();
    });
  });
  return { child, finished };
}

/** Runs every plan as its own process at once and waits for all of them. */
export async function runHosts(
  bundle: string,
  plans: readonly WorkerPlan[],
  onEvent?: (e: WorkerEvent) => void,
): Promise<HostRun[]> {
  return Promise.all(plans.map((p) => startHost(bundle, p, onEvent).finished));
}
