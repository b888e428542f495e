import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createTempDir } from './fixtures.js';

const run = promisify(execFile);

/** Options for {@link createTestCertificates}. */
export interface TestCertificateOptions {
  /**
   * The client certificate's CommonName (default: none). etcd 3.4 with `--client-cert-auth` and
   * auth enabled refuses every `/v3/` request through its HTTP gateway from a certificate that has
   * one (HTTP 400, "CommonName of client sending a request against gateway will be ignored"), and
   * over gRPC takes the CN as the user when a request carries no token.
   */
  readonly clientCommonName?: string;
  /** The openssl binary (default: `$OPENSSL_BIN`, else `openssl` on the PATH). */
  readonly openssl?: string;
}

/** A file written by {@link createTestCertificates} and its PEM text. */
interface PemFile {
  readonly path: string;
  readonly pem: string;
}

/** A throwaway CA with a server and a client certificate, in a temporary directory. */
export interface TestCertificates {
  readonly dir: string;
  readonly ca: PemFile;
  /** For `127.0.0.1` and `localhost` (SANs, no CommonName); usable for server and client auth. */
  readonly serverCert: PemFile;
  readonly serverKey: PemFile;
  /** Client auth only. */
  readonly clientCert: PemFile;
  readonly clientKey: PemFile;
  /** Removes the directory. Safe to call twice. */
  remove(): Promise<void>;
}

// P-256 keys: fast to make, and every TLS stack here (Go, OpenSSL, BoringSSL) takes them.
const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/**
 * Makes a CA (valid one day), a server certificate for `IP:127.0.0.1` and `DNS:localhost` with
 * server and client auth (etcd's gateway presents its server certificate as a client certificate),
 * and a client certificate, with `openssl` run from an argument array. Keys are unencrypted P-256.
 * On failure it removes the directory and throws openssl's error.
 */
export async function createTestCertificates(
  options: TestCertificateOptions = {},
): Promise<TestCertificates> {
  const bin = options.openssl ?? process.env.OPENSSL_BIN ?? 'openssl';
  const dir = await createTempDir('netledger-certs-');
  const openssl = async (args: string[]): Promise<void> => {
    await run(bin, args, { cwd: dir.path });
  };
  // openssl needs a non-empty subject; an O without CN gives a certificate without a CommonName.
  const subject = (cn: string | undefined, o: string): string => (cn ? `/CN=${cn}` : `/O=${o}`);
  const signed = async (name: string, subj: string, extensions: string): Promise<void> => {
    await writeFile(join(dir.path, `${name}.ext`), extensions);
    await openssl([
      'req',
      ...EC_KEY,
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.csr`,
      '-subj',
      subj,
    ]);
    await openssl([
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-days',
      '1',
      '-extfile',
      `${name}.ext`,
      '-out',
      `${name}.pem`,
    ]);
  };
  try {
    await openssl([
      'req',
      '-x509',
      ...EC_KEY,
      '-keyout',
      'ca.key',
      '-out',
      'ca.pem',
      '-subj',
      '/CN=netledger-test-ca',
      '-days',
      '1',
    ]);
    await signed(
      'server',
      subject(undefined, 'netledger-test-server'),
      'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth\n',
    );
    await signed(
      'client',
      subject(options.clientCommonName, 'netledger-test-client'),
      'extendedKeyUsage=clientAuth\n',
    );
    const file = async (name: string): Promise<PemFile> => {
      const path = join(dir.path, name);
      return { path, pem: await readFile(path, 'utf8') };
    };
    return {
      dir: dir.path,
      ca: await file('ca.pem'),
      serverCert: await file('server.pem'),
      serverKey: await file('server.key'),
      clientCert: await file('client.pem'),
      clientKey: await file('client.key'),
      remove: dir.remove,
    };
  } catch (e) {
    await dir.remove();
    throw e;
  }
}
