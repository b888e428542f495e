import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { KubeTestApiserverError } from './kube-test-apiserver-error.js';

const run = promisify(execFile);

/** The files kube-apiserver is started with, all in one directory. */
export interface ApiserverCertificates {
  /** The CA that signed the serving certificate (clients trust it). */
  readonly caFile: string;
  readonly caPem: string;
  readonly servingCertFile: string;
  readonly servingKeyFile: string;
  /** The ServiceAccount token signing key pair. */
  readonly serviceAccountKeyFile: string;
  readonly serviceAccountPublicKeyFile: string;
}

/** The names the API server answers to: the listen address, loopback and the in-cluster names. */
function servingSubjectAltNames(host: string): string {
  const ips = [...new Set([host, '127.0.0.1', '::1'])].filter((h) => isIP(h) !== 0);
  const dns = [
    'localhost',
    'kubernetes',
    'kubernetes.default',
    'kubernetes.default.svc',
    'kubernetes.default.svc.cluster.local',
  ];
  return [...ips.map((ip) => `IP:${ip}`), ...dns.map((d) => `DNS:${d}`)].join(',');
}

// P-256 keys: fast to make, and Go's TLS, OpenSSL and Node all take them.
const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/**
 * Makes, in `dir`, a CA valid for two days, a serving certificate it signs for `host` (see
 * {@link servingSubjectAltNames}), and a P-256 ServiceAccount signing key pair. X.509 needs
 * `openssl` (node:crypto cannot issue certificates); throws START_FAILED with openssl's error.
 */
export async function createApiserverCertificates(options: {
  dir: string;
  host: string;
  openssl?: string;
}): Promise<ApiserverCertificates> {
  const { dir } = options;
  const bin = options.openssl ?? 'openssl';
  const openssl = async (args: string[]): Promise<void> => {
    try {
      await run(bin, args, { cwd: dir });
    } catch (e) {
      const err = e as NodeJS.ErrnoException & { stderr?: string };
      const why = err.code === 'ENOENT' ? 'not found: apt-get install -y openssl' : err.stderr;
      throw new KubeTestApiserverError('START_FAILED', `${bin} ${args[0]}: ${why ?? err.message}`);
    }
  };
  const days = ['-days', '2'];
  await openssl(
    ['req', '-x509', ...EC_KEY, '-keyout', 'ca.key', '-out', 'ca.pem', ...days].concat([
      '-subj',
      '/CN=kube-test-apiserver-ca',
    ]),
  );
  await writeFile(
    join(dir, 'serving.ext'),
    `subjectAltName=${servingSubjectAltNames(options.host)}\nextendedKeyUsage=serverAuth\n`,
  );
  await openssl(
    ['req', ...EC_KEY, '-keyout', 'serving.key', '-out', 'serving.csr'].concat([
      '-subj',
      '/CN=kube-apiserver',
    ]),
  );
  await openssl([
    'x509',
    '-req',
    '-in',
    'serving.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    ...days,
    '-extfile',
    'serving.ext',
    '-out',
    'serving.pem',
  ]);
  const sa = generateKeyPairSync('ec', {
    namedCurve: 'P-256',
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  await writeFile(join(dir, 'sa.key'), sa.privateKey, { mode: 0o600 });
  await writeFile(join(dir, 'sa.pub'), sa.publicKey);
  return {
    caFile: join(dir, 'ca.pem'),
    caPem: await readFile(join(dir, 'ca.pem'), 'utf8'),
    servingCertFile: join(dir, 'serving.pem'),
    servingKeyFile: join(dir, 'serving.key'),
    serviceAccountKeyFile: join(dir, 'sa.key'),
    serviceAccountPublicKeyFile: join(dir, 'sa.pub'),
  };
}
