import { execFileSync, spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestCertificates, startEtcd } from '@netledger/testkit';
import type { EtcdFixture, TestCertificates } from '@netledger/testkit';

// The netledgerctl executable with ETCD_ENDPOINTS written without a scheme, as calicoctl
// (clientv3) and etcdctl take them: `127.0.0.1:PORT` and `[::1]:PORT` against a plain etcd,
// `127.0.0.1:PORT` with ETCD_CA_CERT_FILE against an etcd serving https.

const appDir = join(import.meta.dirname, '..');
// A bundle of its own (the same build as `pnpm build`), so a concurrent test file rebuilding
// dist/netledgerctl.mjs cannot change it under this one.
const BIN_NAME = 'netledgerctl-endpoint-forms';
const bin = join(appDir, 'dist', `${BIN_NAME}.mjs`);

let plain: EtcdFixture;
let secure: EtcdFixture;
let certs: TestCertificates;

beforeAll(async () => {
  execFileSync(
    'node',
    ['../../scripts/bundle-app.mjs', 'src/main.ts', BIN_NAME, '--external', 'etcd3'],
    { cwd: appDir, stdio: 'inherit' },
  );
  certs = await createTestCertificates();
  [plain, secure] = await Promise.all([
    startEtcd({ ipv6Loopback: true }),
    startEtcd({
      tls: {
        caFile: certs.ca.path,
        certFile: certs.serverCert.path,
        keyFile: certs.serverKey.path,
      },
    }),
  ]);
}, 120_000);

afterAll(async () => {
  await Promise.all([plain?.stop(), secure?.stop()]);
  await certs?.remove();
  rmSync(bin, { force: true });
  rmSync(`${bin}.map`, { force: true });
});

const port = (f: EtcdFixture): string => new URL(f.endpoints[0]!).port;

function ctl(env: Record<string, string>, args: string[]) {
  const r = spawnSync('node', [bin, ...args], {
    env: { PATH: process.env.PATH ?? '', DATASTORE_TYPE: 'etcdv3', ...env },
    encoding: 'utf8',
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('ETCD_ENDPOINTS without a scheme', () => {
  it.each([
    ['127.0.0.1:PORT', 'v4', '10.81.0.0/24'],
    ['[::1]:PORT', 'v6', '10.82.0.0/24'],
  ])('%s: creates a pool, assigns from it and shows it', (form, tag, cidr) => {
    const env = { ETCD_ENDPOINTS: form.replace('PORT', port(plain)) };
    expect(ctl(env, ['ippool', 'create', '--name', tag, '--cidr', cidr])).toMatchObject({
      code: 0,
      stderr: '',
    });
    expect(ctl(env, ['node', 'create', `node-${tag}`]).code).toBe(0);
    const assign = ctl(env, ['ipam', 'assign', '--node', `node-${tag}`, '--pool', tag]);
    expect(assign).toMatchObject({ code: 0, stderr: '' });
    expect(assign.stdout).toMatch(
      new RegExp(`^${cidr.split('.0/')[0]!.replaceAll('.', '\\.')}\\.`),
    );
    expect(ctl(env, ['ippool', 'list']).stdout).toContain(cidr);
  });

  it('127.0.0.1:PORT with ETCD_CA_CERT_FILE speaks https', () => {
    const env = {
      ETCD_ENDPOINTS: `127.0.0.1:${port(secure)}`,
      ETCD_CA_CERT_FILE: certs.ca.path,
    };
    expect(ctl(env, ['ippool', 'create', '--name', 'tls', '--cidr', '10.83.0.0/24'])).toMatchObject(
      { code: 0 },
    );
    expect(ctl(env, ['ippool', 'list']).stdout).toContain('10.83.0.0/24');
  });

  it.each([
    ['::1:2379', 'put an IPv6 address in brackets'],
    ['127.0.0.1', 'has no port'],
    ['http://127.0.0.1:2379/v3', 'is not an http(s)://host:port URL'],
  ])('refuses %j with a message naming the problem', (endpoints, message) => {
    const r = ctl({ ETCD_ENDPOINTS: endpoints }, ['ippool', 'list']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(message);
  });
});
