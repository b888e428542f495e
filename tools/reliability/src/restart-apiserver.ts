import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import https from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';

/** The kube-apiserver that replaced the fixture's own. */
export interface RestartedApiserver {
  /** How long from the kill to `/readyz` ok. */
  readonly downMs: number;
  /** SIGKILLs the replacement and resumes the fixture's tool so it can be stopped. */
  stop(): Promise<void>;
}

/** A descendant of `root` whose command is `comm`, from /proc. */
function descendantNamed(root: number, comm: string): number | undefined {
  const procs: { pid: number; ppid: number; name: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const [, name, rest] =
        /^\d+ \((.*)\) (.*)$/.exec(readFileSync(`/proc/${entry}/stat`, 'utf8').trim()) ?? [];
      procs.push({ pid: Number(entry), ppid: Number(rest?.split(' ')[1]), name: name ?? '' });
    } catch {
      // Gone meanwhile.
    }
  }
  const tree = new Set([root]);
  for (let grew = true; grew;) {
    grew = false;
    for (const p of procs) {
      if (tree.has(p.ppid) && !tree.has(p.pid)) {
        tree.add(p.pid);
        grew = true;
      }
    }
  }
  return procs.find((p) => p.name === comm && tree.has(p.pid))?.pid;
}

/** Whether `pid` is gone or a zombie. */
function dead(pid: number): boolean {
  try {
    return /^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

async function ready(url: string, caPem: string, token: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = https.request(`${url}/readyz`, {
      ca: caPem,
      headers: { authorization: `Bearer ${token}` },
      agent: false,
      timeout: 1000,
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', () => resolve(false));
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.end();
  });
}

/**
 * Restarts the fixture's kube-apiserver over the same etcd, port, certificates and tokens: the
 * real process SIGKILLed mid-load and started again with its own command line, as a control-plane
 * node restarting it. kube-test-apiserver stops everything when its API server exits, so the tool
 * is paused (SIGSTOP) for the rest of the test and resumed by `stop()`, which also kills the
 * replacement; the fixture's own `stop()` then stops etcd and removes its temp dir.
 */
export async function restartApiserver(o: {
  /** The kube-test-apiserver tool's PID (the fixture's `pid`). */
  readonly toolPid: number;
  readonly url: string;
  readonly caPem: string;
  readonly token: string;
  /** Where the replacement's output goes. */
  readonly logFile: string;
}): Promise<RestartedApiserver> {
  const pid = descendantNamed(o.toolPid, 'kube-apiserver');
  if (pid === undefined) throw new Error(`no kube-apiserver under process ${o.toolPid}`);
  const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8')
    .split('\0')
    .filter((a) => a !== '');
  const cwd = readlinkSync(`/proc/${pid}/cwd`);
  process.kill(o.toolPid, 'SIGSTOP');
  const killedAt = Date.now();
  process.kill(pid, 'SIGKILL');
  while (!dead(pid)) await sleep(20);
  const log = openSync(o.logFile, 'a');
  let child: ChildProcess | undefined;
  // The port is free once the process is gone; a bind race with the kernel is retried.
  for (let attempt = 0; ; attempt++) {
    child = spawn(argv[0]!, argv.slice(1), { cwd, stdio: ['ignore', log, log] });
    const exited = new Promise<boolean>((resolve) => child!.once('exit', () => resolve(true)));
    let up = false;
    const deadline = Date.now() + 60_000;
    while (!up && Date.now() < deadline) {
      const gone = await Promise.race([exited, sleep(100).then(() => false)]);
      if (gone) break;
      up = await ready(o.url, o.caPem, o.token);
    }
    if (up) break;
    child.kill('SIGKILL');
    if (attempt >= 2) {
      closeSync(log);
      process.kill(o.toolPid, 'SIGCONT');
      throw new Error(`kube-apiserver did not come back; see ${o.logFile}`);
    }
  }
  closeSync(log);
  const downMs = Date.now() - killedAt;
  const replacement = child;
  return {
    downMs,
    stop: async () => {
      if (replacement.exitCode === null && replacement.signalCode === null) {
        const gone = new Promise((resolve) => replacement.once('exit', resolve));
        replacement.kill('SIGKILL');
        await gone;
      }
      process.kill(o.toolPid, 'SIGCONT');
    },
  };
}
