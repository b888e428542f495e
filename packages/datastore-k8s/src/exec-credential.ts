// A kubeconfig's exec credential plugin (client.authentication.k8s.io): the command is run with
// KUBERNETES_EXEC_INFO describing the request and prints an ExecCredential whose status carries a
// bearer token or a client certificate, with an optional expiry.
import { execFile } from 'node:child_process';

/** A kubeconfig user's `exec` section. */
export interface ExecConfig {
  readonly command: string;
  readonly args: readonly string[];
  /** Added to the process environment. */
  readonly env: Readonly<Record<string, string>>;
  readonly apiVersion: string;
  readonly provideClusterInfo: boolean;
}

/** An ExecCredential's `status`. */
export interface ExecCredentialStatus {
  readonly token?: string;
  readonly clientCertificateData?: string;
  readonly clientKeyData?: string;
  /** RFC 3339; absent: valid for the life of the process. */
  readonly expirationTimestamp?: string;
}

const API_VERSIONS = new Set([
  'client.authentication.k8s.io/v1',
  'client.authentication.k8s.io/v1beta1',
]);

/** How long a plugin may run (kubectl has no limit; a CNI invocation has 90 s in all). */
const EXEC_TIMEOUT_MS = 30_000;

/**
 * Parses a plugin's output: an ExecCredential of the requested apiVersion whose status has a
 * token or a client certificate and key. Throws an Error saying what is missing.
 */
export function parseExecCredential(text: string, apiVersion: string): ExecCredentialStatus {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new Error('its output is not JSON');
  }
  const o = doc as { apiVersion?: unknown; kind?: unknown; status?: Record<string, unknown> };
  if (o?.kind !== 'ExecCredential' || o.apiVersion !== apiVersion) {
    throw new Error(`it did not print an ExecCredential of ${apiVersion}`);
  }
  const s = o.status ?? {};
  const text_ = (k: string): string | undefined =>
    typeof s[k] === 'string' && s[k] !== '' ? s[k] : undefined;
  const status: ExecCredentialStatus = {
    ...(text_('token') !== undefined && { token: text_('token') }),
    ...(text_('clientCertificateData') !== undefined && {
      clientCertificateData: text_('clientCertificateData'),
    }),
    ...(text_('clientKeyData') !== undefined && { clientKeyData: text_('clientKeyData') }),
    ...(text_('expirationTimestamp') !== undefined && {
      expirationTimestamp: text_('expirationTimestamp'),
    }),
  };
  const cert = status.clientCertificateData !== undefined;
  if (cert !== (status.clientKeyData !== undefined)) {
    throw new Error('its status has a client certificate without a key, or a key without one');
  }
  if (status.token === undefined && !cert) {
    throw new Error('its status has neither a token nor a client certificate');
  }
  return status;
}

/**
 * Runs an exec credential plugin (argument array, no shell) and returns its credential. Throws an
 * Error naming the command for an unsupported apiVersion, a failed run or bad output.
 */
export async function runExecCredential(
  config: ExecConfig,
  o: { env: NodeJS.ProcessEnv; server: string },
): Promise<ExecCredentialStatus> {
  const fail = (why: string): Error =>
    new Error(`exec credential plugin ${JSON.stringify(config.command)}: ${why}`);
  if (!API_VERSIONS.has(config.apiVersion)) {
    throw fail(`unsupported apiVersion ${JSON.stringify(config.apiVersion)}`);
  }
  const info = {
    apiVersion: config.apiVersion,
    kind: 'ExecCredential',
    spec: {
      interactive: false,
      ...(config.provideClusterInfo && { cluster: { server: o.server } }),
    },
  };
  const env = { ...o.env, ...config.env, KUBERNETES_EXEC_INFO: JSON.stringify(info) };
  const stdout = await new Promise<string>((resolve, reject) => {
    execFile(
      config.command,
      [...config.args],
      { env, timeout: EXEC_TIMEOUT_MS, maxBuffer: 1 << 20 },
      (error, out, err) => {
        if (error) reject(fail(`${error.message.trim()}${err ? `: ${String(err).trim()}` : ''}`));
        else resolve(String(out));
      },
    );
  });
  try {
    return parseExecCredential(stdout, config.apiVersion);
  } catch (e) {
    throw fail((e as Error).message);
  }
}
