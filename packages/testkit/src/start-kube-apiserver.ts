import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { onPath } from './netns-fixture.js';
import { createTempDir } from './fixtures.js';

/** The apps that have a token (and kubeconfig context) of their own on the test API server. */
type KubeAppName = 'cni-plugin' | 'ctl' | 'kube-controllers' | 'node-agent';

/** Options for {@link startKubeApiserver}. */
export interface KubeApiserverFixtureOptions {
  /** How long to wait for the URL (default 90 s: etcd and /readyz, not a build). */
  readonly startTimeoutMs?: number;
  /**
   * Build kube-apiserver if it is not built yet (default false: fail at once saying how to build
   * it, since a build takes minutes, longer than any test hook should wait).
   */
  readonly build?: boolean;
}

/** What {@link KubeApiserverFixture.kubectl} returns; it never throws for a non-zero exit. */
interface KubectlResult {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Options for one kubectl run. */
interface KubectlOptions {
  /** Act as this app (its kubeconfig context and token) instead of the admin. */
  readonly as?: KubeAppName;
  /** Standard input, e.g. a manifest for `apply -f -`. */
  readonly input?: string;
}

/** A running kube-test-apiserver (real kube-apiserver + etcd) and what tests need to use it. */
export interface KubeApiserverFixture {
  /** `https://127.0.0.1:<port>` */
  readonly url: string;
  /** Admin kubeconfig (current context), with a context per app named `netledger-<app>`. */
  readonly kubeconfigPath: string;
  /** The tool's tokens file (JSON: server, admin and apps with token, username, groups, context). */
  readonly tokensPath: string;
  /** A bearer token in `system:masters`. */
  readonly adminToken: string;
  /** Per app: a token authenticating as `system:serviceaccount:kube-system:netledger-<app>`. */
  readonly tokens: Readonly<Record<KubeAppName, string>>;
  /** Per app: its kubeconfig context. */
  readonly contexts: Readonly<Record<KubeAppName, string>>;
  /** The PID of the kube-test-apiserver process (etcd and kube-apiserver are its children). */
  readonly pid: number;
  /** Runs Debian's kubectl (`$KUBECTL`, else `kubectl` on the PATH) with this kubeconfig. */
  kubectl(args: readonly string[], options?: KubectlOptions): Promise<KubectlResult>;
  /** SIGTERMs the tool (which stops kube-apiserver and etcd) and waits for it. Safe twice. */
  stop(): Promise<void>;
}

interface Identity {
  readonly token: string;
  readonly context: string;
}
interface TokensFile {
  readonly admin: Identity;
  readonly apps: Readonly<Record<KubeAppName, Identity>>;
  /** The kubectl built beside kube-apiserver from the same pin (the tool writes it when built). */
  readonly kubectl?: string;
}

/** `$KUBECTL`, else the machine's kubectl, else the one built with kube-apiserver. */
export function chooseKubectl(env: NodeJS.ProcessEnv, pinned: string | undefined): string {
  if (env.KUBECTL) return env.KUBECTL;
  if (onPath('kubectl', env.PATH) || pinned === undefined) return 'kubectl';
  return pinned;
}

/** The workspace root: up from this file (or a bundle of it) to pnpm-workspace.yaml. */
function workspaceRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'pnpm-workspace.yaml'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('kube-test-apiserver: cannot find the workspace root');
    dir = up;
  }
  return dir;
}

const root = workspaceRoot();
const TOOL = join(root, 'tools', 'kube-test-apiserver', 'src', 'main.ts');
const RUN_TS = join(root, 'scripts', 'run-ts.mjs');

// Tools of every fixture in this process: told to stop on exit even when a test forgets stop().
const live = new Set<ChildProcess>();
let exitHookInstalled = false;
function stopAllOnExit(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const child of live) child.kill('SIGTERM');
  });
}

/** Runs kubectl with an argument array; resolves with its status and output. */
async function runKubectl(
  bin: string,
  args: readonly string[],
  input?: string,
): Promise<KubectlResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', (e: NodeJS.ErrnoException) =>
      reject(
        e.code === 'ENOENT'
          ? new Error(`kubectl not found (${bin}): install kubectl or set KUBECTL`)
          : e,
      ),
    );
    child.on('close', (code) => resolve({ status: code ?? 1, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}

/**
 * Starts tools/kube-test-apiserver (from its source, so it is never stale) on a free loopback
 * port with its kubeconfig in a temp dir, and resolves once it prints its URL (/readyz ok).
 * Fails with the tool's own message when kube-apiserver is not built or cannot be built (no Go:
 * what to install), or etcd or the API server does not start. The tool stops by itself if this
 * process dies (its stdin closes).
 */
export async function startKubeApiserver(
  options: KubeApiserverFixtureOptions = {},
): Promise<KubeApiserverFixture> {
  const dir = await createTempDir('netledger-kube-');
  const kubeconfigPath = join(dir.path, 'kubeconfig');
  const args = [
    RUN_TS,
    TOOL,
    '--listen',
    '127.0.0.1:0',
    '--kubeconfig-out',
    kubeconfigPath,
    '--exit-on-stdin-close',
    ...(options.build ? [] : ['--no-build']),
  ];
  stopAllOnExit();
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  live.add(child);
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      live.delete(child);
      resolve();
    }),
  );
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => {
    stderr = (stderr + c.toString()).slice(-20_000);
  });
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopped ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      await dir.remove();
    })();
    return stopped;
  };

  const timeoutMs = options.startTimeoutMs ?? 90_000;
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let stdout = '';
      const timer = setTimeout(
        () =>
          reject(new Error(`kube-test-apiserver printed no URL in ${timeoutMs} ms:\n${stderr}`)),
        timeoutMs,
      );
      child.stdout.on('data', (c: Buffer) => {
        stdout += c.toString();
        const line = /^(https:\/\/\S+)\n/.exec(stdout);
        if (line) {
          clearTimeout(timer);
          resolve(line[1]!);
        }
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(
          new Error(
            `kube-test-apiserver exited (${signal ?? code}) before it was ready:\n${stderr}`,
          ),
        );
      });
    });
    const tokensPath = `${kubeconfigPath}.tokens.json`;
    const tokens = JSON.parse(await readFile(tokensPath, 'utf8')) as TokensFile;
    const perApp = <K extends keyof Identity>(key: K): Record<KubeAppName, Identity[K]> =>
      Object.fromEntries(
        Object.entries(tokens.apps).map(([app, identity]) => [app, identity[key]]),
      ) as Record<KubeAppName, Identity[K]>;
    const contexts = perApp('context');
    const kubectlBin = chooseKubectl(process.env, tokens.kubectl);
    return {
      url,
      kubeconfigPath,
      tokensPath,
      adminToken: tokens.admin.token,
      tokens: perApp('token'),
      contexts,
      pid: child.pid!,
      kubectl: (kubectlArgs, o = {}) =>
        runKubectl(
          kubectlBin,
          [
            '--kubeconfig',
            kubeconfigPath,
            // Its discovery cache (per host:port) in the temp dir, not piling up in ~/.kube.
            '--cache-dir',
            join(dir.path, 'kubectl-cache'),
            ...(o.as ? ['--context', contexts[o.as]] : []),
            ...kubectlArgs,
          ],
          o.input,
        ),
      stop,
    };
  } catch (e) {
    await stop();
    throw e;
  }
}
