import { spawn } from 'node:child_process';
import { cniEnv } from './worker/cni-env.js';
import type { WorkerPlan } from './worker/worker-plan.js';

/** How one plugin run ended. */
export interface PluginRun {
  readonly status: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs the plugin as `plan`'s host (its netconf, merged with `extraConf`), optionally SIGKILLing it
 * `killAfterMs` after the start (a node losing power mid-ADD). Never rejects.
 */
export function runPlugin(
  plan: WorkerPlan,
  call: { command: 'ADD' | 'DEL' | 'GC'; containerId: string },
  o: { killAfterMs?: number; extraConf?: Record<string, unknown> } = {},
): Promise<PluginRun> {
  return new Promise((resolve) => {
    const child = spawn(plan.plugin, [], {
      env: cniEnv({ ...call, namespace: plan.namespace }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer =
      o.killAfterMs === undefined
        ? undefined
        : setTimeout(() => child.kill('SIGKILL'), o.killAfterMs);
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      resolve({ status, signal, stdout, stderr });
    });
    child.stdin.end(JSON.stringify({ ...plan.netconf, ...o.extraConf }));
  });
}

/**
 * One CNI GC pass for `plan`'s host: every allocation of the host on the network whose container
 * is not in `valid` is released. Throws with the plugin's answer unless it exits 0.
 */
export async function cniGc(plan: WorkerPlan, valid: readonly string[]): Promise<void> {
  const r = await runPlugin(
    plan,
    { command: 'GC', containerId: '' },
    {
      extraConf: {
        cniVersion: '1.1.0',
        'cni.dev/valid-attachments': valid.map((containerID) => ({ containerID, ifname: 'eth0' })),
      },
    },
  );
  if (r.status !== 0)
    throw new Error(`CNI GC on ${plan.host}: ${r.status} ${r.stdout} ${r.stderr}`);
}
