import { request } from 'node:http';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { KubeTestApiserverError } from './kube-test-apiserver-error.js';
import { startProcess } from './managed-process.js';
import type { ManagedProcess } from './managed-process.js';

/** Where etcd listens (always 127.0.0.1, plain http: only the API server talks to it). */
export interface EtcdPorts {
  readonly client: number;
  readonly peer: number;
}

/** etcd's flags for a single member with its data under `dir`. */
function etcdArgs(dir: string, ports: EtcdPorts): string[] {
  const client = `http://127.0.0.1:${ports.client}`;
  const peer = `http://127.0.0.1:${ports.peer}`;
  return [
    '--name=kube-test',
    `--data-dir=${join(dir, 'etcd-data')}`,
    `--listen-client-urls=${client}`,
    `--advertise-client-urls=${client}`,
    `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`,
    `--initial-cluster=kube-test=${peer}`,
    '--initial-cluster-state=new',
    '--logger=zap',
    '--log-outputs=stderr',
  ];
}

/** The environment for etcd: ours without ETCD_* (etcd reads those as flags). */
function etcdEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([k]) => !k.startsWith('ETCD_')));
}

async function isHealthy(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const r = request(`${url}/health`, { agent: false, timeout: 1000 });
    r.on('timeout', () => r.destroy(new Error('timed out')));
    r.on('error', () => resolve(false));
    r.on('response', (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('error', () => resolve(false));
      res.on('end', () => resolve(res.statusCode === 200 && body.includes('"true"')));
    });
    r.end();
  });
}

/** A running etcd and its client URL. */
export interface RunningEtcd {
  readonly process: ManagedProcess;
  readonly clientUrl: string;
}

/**
 * Starts etcd in `dir` and waits until `/health` says true. On failure (exit, or not healthy by
 * `deadline`) it stops etcd and throws START_FAILED with the tail of etcd's log.
 */
export async function startEtcdProcess(options: {
  bin: string;
  dir: string;
  ports: EtcdPorts;
  env: NodeJS.ProcessEnv;
  deadline: number;
  signal?: AbortSignal | undefined;
}): Promise<RunningEtcd> {
  const etcd = startProcess({
    name: 'etcd',
    bin: options.bin,
    args: etcdArgs(options.dir, options.ports),
    logFile: join(options.dir, 'etcd.log'),
    env: etcdEnv(options.env),
  });
  const clientUrl = `http://127.0.0.1:${options.ports.client}`;
  for (;;) {
    if (options.signal?.aborted) {
      await etcd.stop(5000);
      options.signal.throwIfAborted();
    }
    if (etcd.hasExited()) {
      throw new KubeTestApiserverError(
        'START_FAILED',
        `etcd (${options.bin}) exited during start:\n${etcd.logTail()}`,
      );
    }
    if (await isHealthy(clientUrl)) return { process: etcd, clientUrl };
    if (Date.now() > options.deadline) {
      await etcd.stop(5000);
      throw new KubeTestApiserverError(
        'START_FAILED',
        `etcd not healthy in time:\n${etcd.logTail()}`,
      );
    }
    await sleep(50);
  }
}
