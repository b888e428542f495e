// What the CNI benchmarks share: the workspace root (where bin/ is), a timed run of a plugin as a
// runtime runs it (environment and standard input, stdout kept), and the CNI environment.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The workspace root: the nearest directory above this module holding pnpm-workspace.yaml. */
export function workspaceRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'pnpm-workspace.yaml'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('cannot find the workspace root');
    dir = up;
  }
  return dir;
}

/** One timed run: wall time from spawn to close, exit status, standard output. */
export interface TimedRun {
  readonly ms: number;
  readonly status: number;
  readonly stdout: string;
}

/** Runs `file` with `env` and `stdin` (stderr ignored) and times it; never rejects. */
export function timedRun(o: {
  readonly file: string;
  readonly args?: readonly string[];
  readonly env: Record<string, string>;
  readonly stdin: string;
}): Promise<TimedRun> {
  return new Promise((resolve) => {
    const start = performance.now();
    const child = spawn(o.file, [...(o.args ?? [])], {
      env: o.env,
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.on('close', (code) =>
      resolve({ ms: performance.now() - start, status: code ?? 1, stdout }),
    );
    child.stdin.end(o.stdin);
  });
}

/** The milliseconds of a run that must succeed; throws with `what` and its output otherwise. */
export async function mustSucceed(what: string, run: Promise<TimedRun>): Promise<number> {
  const r = await run;
  if (r.status !== 0) throw new Error(`${what} failed (${r.status}): ${r.stdout}`);
  return r.ms;
}

/** The CNI environment of one command for container `id` (netns /var/run/netns/<id>, eth0). */
export function cniEnv(o: {
  readonly command: string;
  readonly id: string;
  readonly cniPath: string;
  readonly cniArgs?: string;
}): Record<string, string> {
  return {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    CNI_COMMAND: o.command,
    CNI_CONTAINERID: o.id,
    CNI_NETNS: `/var/run/netns/${o.id}`,
    CNI_IFNAME: 'eth0',
    CNI_PATH: o.cniPath,
    ...(o.cniArgs !== undefined && { CNI_ARGS: o.cniArgs }),
  };
}
