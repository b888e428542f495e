import { randomBytes } from 'node:crypto';
import { constants, existsSync } from 'node:fs';
import { access, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { apiserverArgs } from './apiserver-args.js';
import { createApiserverCertificates } from './certificates.js';
import { startEtcdProcess } from './etcd-process.js';
import type { RunningEtcd } from './etcd-process.js';
import { findFreePort } from './free-port.js';
import { createIdentities, renderTokenAuthFile } from './identities.js';
import type { Identities } from './identities.js';
import { KubeTestApiserverError } from './kube-test-apiserver-error.js';
import { kubeRequest } from './kube-http.js';
import type { KubeEndpoint } from './kube-http.js';
import { renderKubeconfig, renderTokensFile } from './kubeconfig.js';
import { startProcess } from './managed-process.js';
import type { ManagedProcess } from './managed-process.js';
import type { ListenAddress } from './parse-args.js';

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

/** The namespaces tests rely on; the API server's own controller makes them, we make sure. */
const SYSTEM_NAMESPACES = ['default', 'kube-system'] as const;

const STOP_GRACE_MS = 10_000;

/** `https://127.0.0.1:6443` or `https://[::1]:6443`. */
function serverUrl(host: string, port: number): string {
  return `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** Writes `text` to `path` through a temp file and rename, so no reader sees half of it. */
async function writeAtomically(path: string, text: string): Promise<void> {
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, text, { mode: 0o600 });
  await rename(tmp, path);
}

async function waitReady(
  endpoint: KubeEndpoint,
  apiserver: ManagedProcess,
  until: { deadline: number; signal?: AbortSignal | undefined },
): Promise<void> {
  for (;;) {
    until.signal?.throwIfAborted();
    if (apiserver.hasExited()) {
      throw new KubeTestApiserverError(
        'START_FAILED',
        `kube-apiserver exited during start:\n${apiserver.logTail()}`,
      );
    }
    const r = await kubeRequest(endpoint, { method: 'GET', path: '/readyz', timeoutMs: 1000 });
    if (r.status === 200 && r.body === 'ok') return;
    if (Date.now() > until.deadline) {
      const last = `${r.status} ${r.body}`.slice(-2000);
      throw new KubeTestApiserverError(
        'START_FAILED',
        `kube-apiserver not ready in time (last /readyz: ${last}):\n${apiserver.logTail()}`,
      );
    }
    await sleep(100);
  }
}

/**
 * Creates the namespaces that a controller-less API server may not have made yet (its own system
 * namespaces controller usually has, by the time /readyz is ok). 409 means someone else did.
 */
async function ensureNamespaces(endpoint: KubeEndpoint): Promise<void> {
  for (const name of SYSTEM_NAMESPACES) {
    const got = await kubeRequest(endpoint, { method: 'GET', path: `/api/v1/namespaces/${name}` });
    if (got.status === 200) continue;
    const made = await kubeRequest(endpoint, {
      method: 'POST',
      path: '/api/v1/namespaces',
      json: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
    });
    if (made.status !== 201 && made.status !== 409) {
      throw new KubeTestApiserverError(
        'START_FAILED',
        `cannot create namespace ${name}: ${made.status} ${made.body}`,
      );
    }
  }
}

async function startOnce(o: TestApiserverOptions): Promise<RunningTestApiserver> {
  const started = Date.now();
  const deadline = started + o.startTimeoutMs;
  const dir = await mkdtemp(join(tmpdir(), 'kube-test-apiserver-'));
  o.log(`temp dir ${dir} (etcd's data, both logs; removed on stop)`);
  let etcd: RunningEtcd | undefined;
  let apiserver: ManagedProcess | undefined;
  let stopping = false;
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping = true;
    stopped ??= (async () => {
      await apiserver?.stop(STOP_GRACE_MS);
      await etcd?.process.stop(STOP_GRACE_MS);
      await rm(dir, { recursive: true, force: true });
    })();
    return stopped;
  };
  try {
    const port = o.listen.port || (await findFreePort(o.listen.host));
    const url = serverUrl(o.listen.host, port);
    const certificates = await createApiserverCertificates({ dir, host: o.listen.host });
    const identities = createIdentities(() => randomBytes(24).toString('hex'), {
      nodes: o.nodes ?? [],
    });
    const tokenAuthFile = join(dir, 'tokens.csv');
    await writeFile(tokenAuthFile, renderTokenAuthFile(identities), { mode: 0o600 });
    etcd = await startEtcdProcess({
      bin: o.etcdBin,
      dir,
      ports: { client: await findFreePort(), peer: await findFreePort() },
      env: o.env,
      deadline,
      signal: o.signal,
    });
    apiserver = startProcess({
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
    const endpoint = { url, caPem: certificates.caPem, token: identities.admin.token };
    await waitReady(endpoint, apiserver, { deadline, signal: o.signal });
    await ensureNamespaces(endpoint);
    const kubeconfigPath = resolve(o.kubeconfigOut);
    const tokensPath = resolve(o.tokensOut);
    await writeAtomically(
      kubeconfigPath,
      renderKubeconfig({ server: url, caPem: certificates.caPem, identities }),
    );
    const pinnedKubectl = join(dirname(o.apiserverBin), 'kubectl');
    await writeAtomically(
      tokensPath,
      renderTokensFile({
        server: url,
        kubeconfig: kubeconfigPath,
        identities,
        ...(existsSync(pinnedKubectl) && { kubectl: pinnedKubectl }),
      }),
    );
    const children = [etcd.process, apiserver];
    const died = Promise.race(
      children.map(async (child) => {
        const exit = await child.exited;
        if (stopping) return new Promise<string>(() => {}); // an exit we asked for
        return `${child.name} exited (${exit.signal ?? `code ${exit.code}`}):\n${child.logTail()}`;
      }),
    );
    return {
      url,
      kubeconfigPath,
      tokensPath,
      identities,
      startMs: Date.now() - started,
      died,
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
  for (const [flag, path] of [
    ['--kubeconfig-out', o.kubeconfigOut],
    ['--tokens-out', o.tokensOut],
  ] as const) {
    try {
      await access(dirname(resolve(path)), constants.W_OK);
    } catch (e) {
      throw new KubeTestApiserverError(
        'USAGE',
        `${flag} ${path}: cannot write there (${(e as Error).message})`,
      );
    }
  }
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
