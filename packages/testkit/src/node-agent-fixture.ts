import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { request } from 'node:http';
import { createInterface } from 'node:readline';

/** Options of {@link startNodeAgent}. */
export interface NodeAgentFixtureOptions {
  /** The built executable (the workspace's `bin/netledger-node`). */
  readonly bin: string;
  readonly nodename: string;
  readonly socket: string;
  /** The store's settings (DATASTORE_TYPE, NETLEDGER_DATASTORE_PATH, ETCD_ENDPOINTS, ...). */
  readonly env: Readonly<Record<string, string>>;
  /** More arguments (e.g. `--metrics-listen 127.0.0.1:0`). */
  readonly args?: readonly string[];
  /** How long to wait for "serving node" on its standard error (default 30 s). */
  readonly startTimeoutMs?: number;
}

/** A running netledger-node. */
export interface NodeAgentFixture {
  readonly pid: number;
  /** Everything it wrote on standard error so far. */
  log(): string;
  /** GET `path` on its socket: the status and the body. */
  get(path: string): Promise<{ status: number; body: string }>;
  /** GET /v1/status, parsed. */
  status(): Promise<AgentStatus>;
  /** Sends `signal` (default SIGTERM) and resolves with the exit status once it has exited. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** The agent's GET /v1/status document. */
export interface AgentStatus {
  readonly ready: boolean;
  readonly inFlight: number;
  /** Request counts by `command="...",client="...",outcome="..."`. */
  readonly requests: Readonly<Record<string, number>>;
  /** Store requests by operation. */
  readonly datastoreRequests: Readonly<Record<string, number>>;
  /** Full re-lists of its store view (a broken watch, a failed sync). */
  readonly storeResyncs: number;
}

const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const c of live) c.kill('SIGKILL');
});

/**
 * Starts `netledger-node --nodename NAME --socket PATH` (debug logs) with the given store settings
 * and waits until it says it serves (the socket is then listening); fails with its log if it exits
 * first or does not say so in time. The process is killed when the test process exits, should a
 * test forget to stop it.
 */
export async function startNodeAgent(o: NodeAgentFixtureOptions): Promise<NodeAgentFixture> {
  if (!existsSync(o.bin)) throw new Error(`${o.bin} is missing: run pnpm build first`);
  const child = spawn(
    o.bin,
    ['--nodename', o.nodename, '--socket', o.socket, '--log-level', 'debug', ...(o.args ?? [])],
    {
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', ...o.env },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  live.add(child);
  let log = '';
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      live.delete(child);
      resolve(code);
    }),
  );
  const serving = new Promise<void>((resolve) => {
    createInterface({ input: child.stderr }).on('line', (line) => {
      log += `${line}\n`;
      if (line.includes('[INFO] serving node')) resolve();
    });
  });
  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    serving.then(() => 'serving' as const),
    exited.then(() => 'exited' as const),
    new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), o.startTimeoutMs ?? 30_000);
    }),
  ]);
  clearTimeout(timer);
  if (outcome !== 'serving') {
    child.kill('SIGKILL');
    await exited;
    throw new Error(`netledger-node did not start (${outcome}):\n${log}`);
  }
  const get = (path: string): Promise<{ status: number; body: string }> =>
    new Promise((resolve, reject) => {
      const req = request({ socketPath: o.socket, path, method: 'GET' }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString('utf8')));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end();
    });
  return {
    pid: child.pid!,
    log: () => log,
    get,
    status: async () => JSON.parse((await get('/v1/status')).body) as AgentStatus,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
