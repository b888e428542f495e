// Where the API server is and who we are to it, read from a kubeconfig file or the pod's service
// account, without @kubernetes/client-node: that library (large, and slow to load: the plugin's
// start-up in docs/benchmarks.md) was used only for this, and netledger-ipam loads this package
// once per CNI ADD. What kubectl
// reads is read here the same way (relative paths against the kubeconfig's directory, a token file
// re-read every minute, exec credential plugins); auth-provider plugins are refused.
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { IpamError } from '@netledger/ipam-core';
import { runExecCredential } from './exec-credential.js';
import type { ExecConfig, ExecCredentialStatus } from './exec-credential.js';

/** TLS settings of the connection (PEM text). */
interface KubeTls {
  readonly ca?: string;
  readonly cert?: string;
  readonly key?: string;
  readonly rejectUnauthorized: boolean;
  readonly servername?: string;
}

/** What a request needs from the credentials: headers, and client certificates from an exec plugin. */
interface KubeCredentials {
  readonly authorization?: string;
  readonly cert?: string;
  readonly key?: string;
}

/** A loaded configuration: the server, the TLS settings and where each request's credentials come from. */
export interface KubeConfig {
  /** `https://host:port` (possibly with a path prefix), without a trailing slash. */
  readonly server: string;
  readonly tls: KubeTls;
  /** The kubeconfig path, or "the in-cluster service account", for messages. */
  readonly source: string;
  /** Credentials for the next request (token files and exec plugins rotate them). */
  credentials(): Promise<KubeCredentials>;
}

/** Options of {@link loadKubeConfig}; the environment and paths are injectable for tests. */
export interface LoadKubeConfigOptions {
  /** Path of a kubeconfig; without it, the in-cluster service account. */
  readonly kubeconfig?: string;
  /** A context other than the kubeconfig's current one. */
  readonly context?: string;
  /** Default `process.env` (`KUBERNETES_SERVICE_HOST`/`_PORT`, and the exec plugins' environment). */
  readonly env?: NodeJS.ProcessEnv;
  /** Default `/var/run/secrets/kubernetes.io/serviceaccount`. */
  readonly serviceAccountDir?: string;
  /** Milliseconds since the epoch (default `Date.now`): token re-reads and exec expiry. */
  readonly now?: () => number;
}

/** The service account's mount in a pod. */
const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/** client-go re-reads a token file once a minute (bound service-account tokens rotate). */
const TOKEN_FILE_TTL_MS = 60_000;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

class ConfigProblem extends Error {}

function str(o: Obj, key: string, where: string): string | undefined {
  const v = o[key];
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string') throw new ConfigProblem(`${where}.${key} must be a string`);
  return v;
}

/** The field holding an entry's body, per kubeconfig list: `contexts[].context`, ... */
const ENTRY_FIELD = { contexts: 'context', clusters: 'cluster', users: 'user' } as const;

/** The body of the entry called `name` in the kubeconfig's list `kind`. */
function named(doc: Obj, kind: keyof typeof ENTRY_FIELD, name: string): Obj {
  const list = doc[kind];
  const field = ENTRY_FIELD[kind];
  if (list !== undefined && list !== null && !Array.isArray(list)) {
    throw new ConfigProblem(`${kind} must be a list`);
  }
  const entry = (list as unknown[] | undefined)?.find((e) => isObj(e) && e['name'] === name);
  if (!isObj(entry)) throw new ConfigProblem(`${kind} has no entry named ${JSON.stringify(name)}`);
  const body = entry[field] ?? {};
  if (!isObj(body))
    throw new ConfigProblem(`${kind} ${JSON.stringify(name)}: ${field} must be a map`);
  return body;
}

/** Reads a file named by the kubeconfig, relative to the kubeconfig's directory (as kubectl does). */
function readRelative(base: string, path: string, what: string): string {
  const full = isAbsolute(path) ? path : join(base, path);
  try {
    return readFileSync(full, 'utf8');
  } catch (e) {
    throw new ConfigProblem(`cannot read ${what} ${full}: ${(e as Error).message}`);
  }
}

const fromBase64 = (data: string): string => Buffer.from(data, 'base64').toString('utf8');

/** A token file read at most once per TTL; a failed re-read keeps the last token (as client-go). */
function tokenFileSource(path: string, now: () => number): () => string {
  let token = readTokenFile(path);
  let readAt = now();
  return () => {
    if (now() - readAt >= TOKEN_FILE_TTL_MS) {
      try {
        token = readTokenFile(path);
      } catch {
        // Keep the last token: the file may be mid-rotation.
      }
      readAt = now();
    }
    return token;
  };
}

function readTokenFile(path: string): string {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch (e) {
    throw new ConfigProblem(`cannot read token file ${path}: ${(e as Error).message}`);
  }
}

function userCredentials(
  user: Obj,
  base: string,
  o: { env: NodeJS.ProcessEnv; now: () => number; server: string },
): { tls: Pick<KubeTls, 'cert' | 'key'>; credentials: () => Promise<KubeCredentials> } {
  const where = 'user';
  if (user['auth-provider'] !== undefined) {
    const name = isObj(user['auth-provider']) ? user['auth-provider']['name'] : undefined;
    throw new ConfigProblem(
      `auth-provider ${JSON.stringify(name ?? '')} is not supported (removed from kubectl); use a token, a client certificate or an exec credential plugin`,
    );
  }
  const certData = str(user, 'client-certificate-data', where);
  const certFile = str(user, 'client-certificate', where);
  const keyData = str(user, 'client-key-data', where);
  const keyFile = str(user, 'client-key', where);
  const cert =
    certData !== undefined
      ? fromBase64(certData)
      : certFile !== undefined
        ? readRelative(base, certFile, 'client certificate')
        : undefined;
  const key =
    keyData !== undefined
      ? fromBase64(keyData)
      : keyFile !== undefined
        ? readRelative(base, keyFile, 'client key')
        : undefined;
  if ((cert === undefined) !== (key === undefined)) {
    throw new ConfigProblem('a client certificate needs its key, and a key its certificate');
  }
  const tls = { ...(cert !== undefined && { cert }), ...(key !== undefined && { key }) };

  const token = str(user, 'token', where);
  const tokenFile = str(user, 'tokenFile', where);
  if (tokenFile !== undefined) {
    const read = tokenFileSource(isAbsolute(tokenFile) ? tokenFile : join(base, tokenFile), o.now);
    return { tls, credentials: async () => ({ authorization: `Bearer ${read()}` }) };
  }
  if (token !== undefined) {
    const creds = { authorization: `Bearer ${token}` };
    return { tls, credentials: async () => creds };
  }
  const username = str(user, 'username', where);
  if (username !== undefined) {
    const basic = Buffer.from(`${username}:${str(user, 'password', where) ?? ''}`).toString(
      'base64',
    );
    const creds = { authorization: `Basic ${basic}` };
    return { tls, credentials: async () => creds };
  }
  const exec = user['exec'];
  if (exec !== undefined) {
    if (!isObj(exec)) throw new ConfigProblem('user.exec must be a map');
    const config = execConfig(exec, base);
    let cached: { status: ExecCredentialStatus; until: number } | undefined;
    return {
      tls,
      credentials: async () => {
        if (cached === undefined || o.now() >= cached.until) {
          const status = await runExecCredential(config, { env: o.env, server: o.server });
          const until =
            status.expirationTimestamp === undefined
              ? Number.POSITIVE_INFINITY
              : Date.parse(status.expirationTimestamp);
          cached = { status, until };
        }
        const s = cached.status;
        return {
          ...(s.token !== undefined && { authorization: `Bearer ${s.token}` }),
          ...(s.clientCertificateData !== undefined && { cert: s.clientCertificateData }),
          ...(s.clientKeyData !== undefined && { key: s.clientKeyData }),
        };
      },
    };
  }
  return { tls, credentials: async () => ({}) };
}

function execConfig(exec: Obj, base: string): ExecConfig {
  const command = str(exec, 'command', 'user.exec');
  if (command === undefined) throw new ConfigProblem('user.exec.command is missing');
  const args = exec['args'] ?? [];
  if (!Array.isArray(args) || args.some((a) => typeof a !== 'string')) {
    throw new ConfigProblem('user.exec.args must be a list of strings');
  }
  const envList = exec['env'] ?? [];
  if (!Array.isArray(envList)) throw new ConfigProblem('user.exec.env must be a list');
  const env: Record<string, string> = {};
  for (const e of envList) {
    if (!isObj(e) || typeof e['name'] !== 'string' || typeof e['value'] !== 'string') {
      throw new ConfigProblem('user.exec.env entries need a name and a value');
    }
    env[e['name']] = e['value'];
  }
  // kubectl resolves a relative command containing a slash against the kubeconfig's directory.
  const resolved = command.includes('/') && !isAbsolute(command) ? join(base, command) : command;
  return {
    command: resolved,
    args: args as string[],
    env,
    apiVersion: str(exec, 'apiVersion', 'user.exec') ?? 'client.authentication.k8s.io/v1',
    provideClusterInfo: exec['provideClusterInfo'] === true,
  };
}

function fromKubeconfigFile(
  path: string,
  o: Required<Omit<LoadKubeConfigOptions, 'kubeconfig' | 'context'>> & { context?: string },
): KubeConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ConfigProblem((e as Error).message);
  }
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (e) {
    throw new ConfigProblem(`not YAML: ${(e as Error).message}`);
  }
  if (!isObj(doc)) throw new ConfigProblem('not a kubeconfig (a YAML map)');
  const contextName = o.context ?? str(doc, 'current-context', 'kubeconfig');
  if (contextName === undefined) throw new ConfigProblem('no current-context and no context given');
  const contexts = Array.isArray(doc['contexts']) ? (doc['contexts'] as unknown[]) : [];
  if (!contexts.some((c) => isObj(c) && c['name'] === contextName)) {
    const names = contexts.map((c) => (isObj(c) ? String(c['name']) : '?'));
    throw new ContextMissing(
      `kubeconfig ${path} has no context ${JSON.stringify(contextName)} (it has: ${names.join(', ')})`,
    );
  }
  const context = named(doc, 'contexts', contextName);
  const clusterName = str(context, 'cluster', `context ${contextName}`);
  if (clusterName === undefined) throw new ConfigProblem(`context ${contextName} names no cluster`);
  const cluster = named(doc, 'clusters', clusterName);
  const server = str(cluster, 'server', `cluster ${clusterName}`);
  if (server === undefined) throw new NoServer(`Kubernetes config ${path} names no cluster server`);
  const base = dirname(path);
  const caData = str(cluster, 'certificate-authority-data', 'cluster');
  const caFile = str(cluster, 'certificate-authority', 'cluster');
  const ca =
    caData !== undefined
      ? fromBase64(caData)
      : caFile !== undefined
        ? readRelative(base, caFile, 'certificate authority')
        : undefined;
  const servername = str(cluster, 'tls-server-name', 'cluster');
  const userName = str(context, 'user', `context ${contextName}`);
  const user = userName === undefined ? {} : named(doc, 'users', userName);
  const { tls, credentials } = userCredentials(user, base, { ...o, server });
  return {
    server: server.replace(/\/$/, ''),
    source: path,
    tls: {
      ...(ca !== undefined && { ca }),
      ...tls,
      rejectUnauthorized: cluster['insecure-skip-tls-verify'] !== true,
      ...(servername !== undefined && { servername }),
    },
    credentials,
  };
}

function inCluster(o: {
  env: NodeJS.ProcessEnv;
  serviceAccountDir: string;
  now: () => number;
}): KubeConfig {
  const host = o.env['KUBERNETES_SERVICE_HOST'];
  const port = o.env['KUBERNETES_SERVICE_PORT'];
  if (!host || !port) {
    throw new ConfigProblem(
      'KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set (not in a pod?); pass a kubeconfig',
    );
  }
  const ca = readRelative(o.serviceAccountDir, 'ca.crt', 'service account CA');
  const read = tokenFileSource(join(o.serviceAccountDir, 'token'), o.now);
  return {
    server: `https://${host.includes(':') ? `[${host}]` : host}:${port}`,
    source: 'the in-cluster service account',
    tls: { ca, rejectUnauthorized: true },
    credentials: async () => ({ authorization: `Bearer ${read()}` }),
  };
}

class ContextMissing extends Error {}
class NoServer extends Error {}

/**
 * Loads a kubeconfig (its current context, or `context`) or, without one, the in-cluster service
 * account. Files it names (CA, client certificate and key, token file) are read now; a token file
 * is re-read once a minute and an exec plugin runs on the first request and again when its
 * credential expires. Throws `InvalidArgument` saying what is wrong: an unreadable file, no such
 * context (naming those there are), no server, an auth-provider plugin.
 */
export function loadKubeConfig(opts: LoadKubeConfigOptions): KubeConfig {
  const o = {
    env: opts.env ?? process.env,
    serviceAccountDir: opts.serviceAccountDir ?? SERVICE_ACCOUNT_DIR,
    now: opts.now ?? Date.now,
    ...(opts.context !== undefined && { context: opts.context }),
  };
  const source = opts.kubeconfig ?? 'the in-cluster service account';
  try {
    return opts.kubeconfig !== undefined ? fromKubeconfigFile(opts.kubeconfig, o) : inCluster(o);
  } catch (e) {
    if (e instanceof ContextMissing || e instanceof NoServer) {
      throw new IpamError('InvalidArgument', e.message);
    }
    throw new IpamError(
      'InvalidArgument',
      `cannot load Kubernetes config from ${source}: ${e instanceof Error ? e.message : String(e)}`,
      { cause: e },
    );
  }
}
