import { existsSync } from 'node:fs';
import https from 'node:https';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestCertificates } from './create-test-certificates.js';
import type { EtcdFixture } from './etcd-fixture.js';
import { startEtcd } from './etcd-fixture.js';
import { findFreePort } from './fixtures.js';

const isRunning = (pidOwner: EtcdFixture, i: number): boolean => pidOwner.members[i]!.running;

describe('startEtcd', () => {
  const started: EtcdFixture[] = [];
  afterAll(async () => {
    for (const f of started) await f.stop();
  });

  it('fails, naming the package to install, when the etcd binary is missing', async () => {
    await expect(startEtcd({ bin: '/nonexistent/etcd' })).rejects.toThrow(
      'etcd not found: apt-get install -y etcd-server',
    );
  });

  it('starts one member, answers on its client URL, and removes everything on stop', async () => {
    const etcd = await startEtcd();
    started.push(etcd);
    expect(etcd.endpoints).toHaveLength(1);
    expect(etcd.endpoints[0]).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const health = (await (await fetch(`${etcd.endpoints[0]}/health`)).json()) as {
      health: string;
    };
    expect(health.health).toBe('true');
    expect(await etcd.leaderIndex()).toBe(0);
    const dataDir = etcd.members[0]!.dataDir;
    expect(existsSync(dataDir)).toBe(true);
    await etcd.stop();
    expect(existsSync(dataDir)).toBe(false);
    await expect(fetch(`${etcd.endpoints[0]}/health`)).rejects.toThrow();
    await etcd.stop();
  });

  it('starts again on other ports when a port it chose was taken before etcd bound it', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as AddressInfo).port;
    let first = true;
    try {
      const etcd = await startEtcd({
        findPort: async () => (first ? ((first = false), port) : findFreePort()),
      });
      started.push(etcd);
      expect(etcd.endpoints[0]).not.toContain(`:${port}`);
      expect((await fetch(`${etcd.endpoints[0]}/health`)).status).toBe(200);
    } finally {
      taken.close();
    }
  });

  it('runs a 3-member cluster that elects a new leader when the leader is killed, and restarts it', async () => {
    const etcd = await startEtcd({ members: 3 });
    started.push(etcd);
    expect(new Set(etcd.endpoints).size).toBe(3);
    const leader = await etcd.leaderIndex();
    await etcd.kill(leader);
    expect(isRunning(etcd, leader)).toBe(false);
    const next = await etcd.leaderIndex();
    expect(next).not.toBe(leader);
    await etcd.restart(leader);
    expect(isRunning(etcd, leader)).toBe(true);
    const health = (await (await fetch(`${etcd.endpoints[leader]}/health`)).json()) as {
      health: string;
    };
    expect(health.health).toBe('true');
  });
});

/** GET `url` over https with `tls`: the status and body, or the error that stopped it. */
async function httpsGet(url: string, tls: https.RequestOptions): Promise<string> {
  return new Promise((resolve) => {
    const req = https.get(url, { ...tls, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve(`${res.statusCode} ${Buffer.concat(chunks).toString()}`));
    });
    req.on('error', (e) => resolve(`error: ${e.message}`));
  });
}

describe('startEtcd with tls', () => {
  it.each([
    { clientCertAuth: true, withoutClientCert: /^error: / },
    { clientCertAuth: false, withoutClientCert: /^200 / },
  ])(
    'serves clients over https (client certificate required: $clientCertAuth) and stays manageable',
    async ({ clientCertAuth, withoutClientCert }) => {
      const certs = await createTestCertificates();
      const etcd = await startEtcd({
        tls: {
          caFile: certs.ca.path,
          certFile: certs.serverCert.path,
          keyFile: certs.serverKey.path,
          clientCertAuth,
        },
      });
      try {
        expect(etcd.endpoints[0]).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
        const health = `${etcd.endpoints[0]}/health`;
        const client = { ca: certs.ca.pem, cert: certs.clientCert.pem, key: certs.clientKey.pem };
        expect(await httpsGet(health, client)).toBe('200 {"health":"true"}');
        expect(await httpsGet(health, { ca: certs.ca.pem })).toMatch(withoutClientCert);
        // Without the CA, etcd's certificate is not trusted.
        expect(await httpsGet(health, { cert: client.cert, key: client.key })).toMatch(
          /^error: .*certificate/,
        );
        expect(await etcd.leaderIndex()).toBe(0);
        await etcd.restart(0);
        expect(await httpsGet(health, client)).toBe('200 {"health":"true"}');
      } finally {
        await etcd.stop();
        await certs.remove();
      }
    },
  );

  it('fails before starting anything when a TLS file cannot be read', async () => {
    await expect(
      startEtcd({ tls: { caFile: '/nonexistent/ca.pem', certFile: 'x', keyFile: 'y' } }),
    ).rejects.toThrow(/ENOENT.*\/nonexistent\/ca\.pem/);
  });
});
