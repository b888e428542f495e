import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiserverArgs } from './apiserver-args.js';
import { createApiserverCertificates } from './certificates.js';
import { checkClientFilesWritable, writeClientFiles } from './client-files.js';
import { ensureSystemNamespaces } from './ensure-system-namespaces.js';
import { startEtcdProcess } from './etcd-process.js';
import type { RunningEtcd } from './etcd-process.js';
import { findFreePort } from './free-port.js';
import { createIdentities, renderTokenAuthFile } from './identities.js';
import type { Identities } from './identities.js';
import { KubeTestApiserverError } from './kube-test-apiserver-error.js';
import type { KubeEndpoint } from './kube-http.js';
import { startProcess } from './managed-process.js';
import type { ManagedProcess } from './managed-process.js';
import type { ListenAddress } from './parse-args.js';
import { waitApiserverReady } from './wait-apiserver-ready.js';

/** Options for {@link startTestApiserver}. */
export interface TestApiserverOptions {
  readonly listen: ListenAddress;
  readonly kubeconfigOut: string;
  readonly tokensOut: string;
  readonly apiserverBin: string;
  readonly etcdBin: string;
  readonly startTimeoutMs: number;
  readonly env: NodeJS.ProcessEnv;
  readonly log: (line: string) => void;
  /** Aborting stops a start in progress: what it started is stopped, and it throws the reason. */
  readonly signal?: AbortSignal;
  /** Nodes whose kubelets get an identity (`system:node:<name>`). */
  readonly nodes?: readonly string[];
  /** A kube-controller-manager will run beside it (see {@link apiserverArgs}). */
  readonly withControllerManager?: boolean;
}

/** A running etcd + kube-apiserver. */
export interface RunningTestApiserver {
  /** `https://HOST:PORT` */
  readonly url: string;
  readonly kubeconfigPath: string;
  readonly tokensPath: string;
  readonly identities: Identities;
  /** From spawning etcd to /readyz ok and the system namespaces present. */
  readonly startMs: number;
  /** Resolves with a message if etcd or the API server exits before {@link stop}. */
  readonly died: Promise<string>;
  /** Stops the API server, then etcd, and removes the temp dir. Safe to call twice. */
  stop(): Promise<void>;
}

/** The processes of one start, each recorded as soon as it runs (so a failure stops it). */
interface Started {
  etcd?: RunningEtcd;
  apiserver?: ManagedProcess;
  /** Set once a stop was asked for: the exits that follow are not deaths. */
  stopping: boolean;
}

const STOP_GRACE_MS = 10_000;

/** `https://127.0.0.1:6443` or `https://[::1]:6443`. */
function serverUrl(host: string, port: number): string {
  return `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/**
 * Starts etcd, then kube-apiserver over it, in `dir`, recording each in `started`; resolves the
 * admin's endpoint and the identities once /readyz is ok. Throws START_FAILED (or the signal's
 * reason) leaving in `started` what runs.
 */
async function launch(
  o: TestApiserverOptions,
  at: { readonly dir: string; readonly deadline: number; readonly started: Started },
): Promise<{ endpoint: KubeEndpoint; identities: Identities }> {
  const { dir, deadline, started } = at;
  const port = o.listen.port || (await findFreePort(o.listen.host));
  const certificates = await createApiserverCertificates({ dir, host: o.listen.host });
  const identities = createIdentities(() => randomBytes(24).toString('hex'), {
    nodes: o.nodes ?? [],
  });
  const tokenAuthFile = join(dir, 'tokens.csv');
  await writeFile(tokenAuthFile, renderTokenAuthFile(identities), { mode: 0o600 });
  const etcd = await startEtcdProcess({
    bin: o.etcdBin,
    dir,
    ports: { client: await findFreePort(), peer: await findFreePort() },
    env: o.env,
    deadline,
    signal: o.signal,
  });
  started.etcd = etcd;
  const apiserver = startProcess({
    name: 'kube-apiserver',
    bin: o.apiserverBin,
    args: apiserverArgs({
      host: o.listen.host,
      port,
      etcdUrl: etcd.clientUrl,
      certificates,
      tokenAuthFile,
      withControllerManager: o.withControllerManager ?? false,
    }),
    logFile: join(dir, 'kube-apiserver.log'),
    env: o.env,
  });
  started.apiserver = apiserver;
  const url = serverUrl(o.listen.host, port);
  const endpoint = { url, caPem: certificates.caPem, token: identities.admin.token };
  await waitApiserverReady(endpoint, apiserver, { deadline, signal: o.signal });
  return { endpoint, identities };
}

/** Resolves with a message when the first of `children` exits, unless a stop was asked for. */
function firstDeath(children: readonly ManagedProcess[], started: Started): Promise<string> {
  return Promise.race(
    children.map(async (child) => {
      const exit = await child.exited;
      if (started.stopping) return new Promise<string>(() => {}); // an exit we asked for
      return `${child.name} exited (${exit.signal ?? `code ${exit.code}`}):\n${child.logTail()}`;
    }),
  );
}

async function startOnce(o: TestApiserverOptions): Promise<RunningTestApiserver> {
  const startedAt = Date.now();
  const dir = await mkdtemp(join(tmpdir(), 'kube-test-apiserver-'));
  o.log(`temp dir ${dir} (etcd's data, both logs; removed on stop)`);
  const started: Started = { stopping: false };
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    started.stopping = true;
    stopped ??= (async () => {
      await started.apiserver?.stop(STOP_GRACE_MS);
      await started.etcd?.process.stop(STOP_GRACE_MS);
      await rm(dir, { recursive: true, force: true });
    })();
    return stopped;
  };
  try {
    const deadline = startedAt + o.startTimeoutMs;
    const { endpoint, identities } = await launch(o, { dir, deadline, started });
    await ensureSystemNamespaces(endpoint);
    const files = await writeClientFiles(o, {
      server: endpoint.url,
      caPem: endpoint.caPem,
      identities,
      apiserverBin: o.apiserverBin,
    });
    const children = [started.etcd!.process, started.apiserver!];
    return {
      url: endpoint.url,
      ...files,
      identities,
      startMs: Date.now() - startedAt,
      died: firstDeath(children, started),
      stop,
    };
  } catch (e) {
    await stop();
    throw e;
  }
}

/**
 * Starts etcd and kube-apiserver on loopback in a fresh temp dir, waits for /readyz ok and the
 * `default` and `kube-system` namespaces, then writes the kubeconfig and the tokens file. Ports
 * it picked itself that another process took meanwhile are picked again (three tries). On
 * failure it stops what it started, removes the temp dir and throws START_FAILED with the logs'
 * tails.
 */
export async function startTestApiserver(o: TestApiserverOptions): Promise<RunningTestApiserver> {
  // Refuse an output path that cannot be written before spending seconds on a start.
  await checkClientFilesWritable(o);
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(o);
    } catch (e) {
      const portRace =
        e instanceof KubeTestApiserverError && /address already in use/.test(e.message);
      if (!portRace || attempt >= 3) throw e;
      o.log(`a port was taken during start-up; starting again (attempt ${attempt + 1})`);
    }
  }
}
