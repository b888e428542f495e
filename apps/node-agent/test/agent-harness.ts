// What the agent's end-to-end tests share: the built executables, the plugin installed (the static
// client and its Node.js fallback), and running it as a runtime does (CNI_* environment and the
// config on stdin).
import { execFile, spawn, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AgentStatus, NodeAgentFixture } from '@netledger/testkit';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const BIN_DIR = join(ROOT, 'bin');
export const AGENT = join(BIN_DIR, 'netledger-node');
const CTL = join(BIN_DIR, 'netledgerctl');

/** One plugin run. */
export interface CniRun {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly json: Record<string, unknown> | undefined;
}

/** The static client's name in the agent's counters (its User-Agent). */
export const CLIENT = 'netledger-ipam';

/**
 * Installs netledger-ipam from bin/ into `dir` (`netledger-ipam install`): the static client,
 * which asks the agent at each request's `agent_socket`, and its Node.js fallback. Returns the
 * installed client.
 */
export function installPlugin(args: { dir: string }): string {
  const r = spawnSync(join(BIN_DIR, 'netledger-ipam'), ['install', '--bin-dir', args.dir], {
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`install failed: ${r.stderr}`);
  return join(args.dir, 'netledger-ipam');
}

/** Runs `plugin` (the installed client) for one command, as a runtime does. */
export function runCni(args: {
  plugin: string;
  command: string;
  containerId?: string;
  conf: unknown;
  env?: Record<string, string>;
}): Promise<CniRun> {
  const env = {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    CNI_COMMAND: args.command,
    CNI_CONTAINERID: args.containerId ?? 'c1',
    CNI_NETNS: `/var/run/netns/${args.containerId ?? 'c1'}`,
    CNI_IFNAME: 'eth0',
    CNI_PATH: BIN_DIR,
    ...args.env,
  };
  return new Promise((resolve) => {
    const child = execFile(args.plugin, [], { env, encoding: 'utf8' }, (error, stdout, stderr) => {
      let json: Record<string, unknown> | undefined;
      try {
        json = JSON.parse(stdout) as Record<string, unknown>;
      } catch {
        json = undefined;
      }
      const status = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ status, stdout, stderr, json });
    });
    child.stdin?.end(JSON.stringify(args.conf));
  });
}

/** Runs netledgerctl against the file store at `path`; throws on failure. */
export function ctl(path: string, args: string[]): string {
  const r = spawnSync(CTL, args, {
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', NETLEDGER_DATASTORE_PATH: path },
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`netledgerctl ${args.join(' ')}: ${r.stderr}${r.stdout}`);
  return r.stdout;
}

/** The first address of a CNI result. */
export const addressOf = (run: CniRun): string =>
  ((run.json?.['ips'] as { address: string }[] | undefined)?.[0]?.address ?? '').split('/')[0]!;

/** A request count of the agent's status (`requests`), 0 when absent. */
/**
 * The agent's status once no request is in flight. An answer reaches its client before the agent
 * counts the request (it settles the host lock first), so counts read right after a client's
 * answer may miss that request; read them from here.
 */
export async function statusWhenIdle(a: NodeAgentFixture): Promise<AgentStatus> {
  let status = await a.status();
  for (const deadline = Date.now() + 30_000; status.inFlight > 0; status = await a.status()) {
    if (Date.now() > deadline) throw new Error(`${status.inFlight} request(s) still in flight`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return status;
}

export const served = (
  requests: Readonly<Record<string, number>>,
  labels: { command: string; client: string; outcome: string },
): number =>
  requests[`command="${labels.command}",client="${labels.client}",outcome="${labels.outcome}"`] ??
  0;

/**
 * Holds flock(2) on `path` from another process, as calico-ipam does while it runs (util-linux's
 * flock(1); `-o`: its command does not inherit the lock). Resolves once it holds it.
 */
export async function holdHostLock(path: string): Promise<{ release(): Promise<void> }> {
  mkdirSync(dirname(path), { recursive: true });
  const child = spawn('flock', ['-o', path, 'sh', '-c', 'echo held; exec sleep 600'], {
    stdio: ['ignore', 'pipe', 'ignore'],
    detached: true,
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`flock ${path} exited ${code}`)));
  });
  const gone = new Promise((resolve) => child.once('exit', resolve));
  return {
    async release() {
      try {
        process.kill(-child.pid!, 'SIGKILL'); // flock and the command it started
      } catch {
        return; // already gone
      }
      await gone;
    },
  };
}
