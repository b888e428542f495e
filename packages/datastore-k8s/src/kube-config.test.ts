import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTempDir } from '@netledger/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadKubeConfig } from './kube-config.js';

let dir: { path: string; remove: () => Promise<void> };
beforeEach(async () => {
  dir = await createTempDir('netledger-kubeconfig-');
});
afterEach(async () => {
  await dir.remove();
});

const b64 = (s: string): string => Buffer.from(s).toString('base64');

/** Writes a kubeconfig (YAML, as kubectl writes them) with one cluster and the given users. */
function kubeconfig(
  o: { cluster?: string; users?: string; contexts?: string; current?: string } = {},
): string {
  const path = join(dir.path, 'kubeconfig');
  writeFileSync(
    path,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: c1',
      '  cluster:',
      o.cluster ??
        `    server: https://10.0.0.1:6443/\n    certificate-authority-data: ${b64('CA-PEM')}`,
      'users:',
      o.users ?? '- name: u1\n  user:\n    token: tok-1',
      'contexts:',
      o.contexts ??
        '- name: ctx1\n  context:\n    cluster: c1\n    user: u1\n- name: ctx2\n  context:\n    cluster: c1\n    user: u2',
      `current-context: ${o.current ?? 'ctx1'}`,
      '',
    ].join('\n'),
  );
  return path;
}

describe('loadKubeConfig from a kubeconfig file', () => {
  it('reads the current context: server without its trailing slash, inline CA, token', async () => {
    const kc = loadKubeConfig({ kubeconfig: kubeconfig() });
    expect(kc).toMatchObject({
      server: 'https://10.0.0.1:6443',
      tls: { ca: 'CA-PEM', rejectUnauthorized: true },
    });
    expect(await kc.credentials()).toEqual({ authorization: 'Bearer tok-1' });
  });

  it('takes another context, and refuses one that does not exist naming those that do', async () => {
    const path = kubeconfig({
      users:
        '- name: u1\n  user:\n    token: tok-1\n- name: u2\n  user:\n    username: ann\n    password: pw',
    });
    const kc = loadKubeConfig({ kubeconfig: path, context: 'ctx2' });
    expect(await kc.credentials()).toEqual({ authorization: `Basic ${b64('ann:pw')}` });
    expect(() => loadKubeConfig({ kubeconfig: path, context: 'nope' })).toThrow(
      /has no context "nope" \(it has: ctx1, ctx2\)/,
    );
  });

  it('reads files named relative to the kubeconfig, and client certificates', () => {
    mkdirSync(join(dir.path, 'pki'));
    writeFileSync(join(dir.path, 'pki', 'ca.crt'), 'CA-FILE');
    writeFileSync(join(dir.path, 'pki', 'client.crt'), 'CERT-FILE');
    const kc = loadKubeConfig({
      kubeconfig: kubeconfig({
        cluster:
          '    server: https://api:6443\n    certificate-authority: pki/ca.crt\n    tls-server-name: kubernetes\n    insecure-skip-tls-verify: true',
        users: `- name: u1\n  user:\n    client-certificate: pki/client.crt\n    client-key-data: ${b64('KEY')}`,
      }),
    });
    expect(kc.tls).toEqual({
      ca: 'CA-FILE',
      cert: 'CERT-FILE',
      key: 'KEY',
      rejectUnauthorized: false,
      servername: 'kubernetes',
    });
  });

  it('re-reads a token file once a minute, keeping the last token if the file is gone', async () => {
    const tokenPath = join(dir.path, 'token');
    writeFileSync(tokenPath, 'first\n');
    let now = 1_000_000;
    const kc = loadKubeConfig({
      kubeconfig: kubeconfig({
        users: '- name: u1\n  user:\n    token: ignored\n    tokenFile: token',
      }),
      now: () => now,
    });
    writeFileSync(tokenPath, 'second\n');
    expect(await kc.credentials()).toEqual({ authorization: 'Bearer first' });
    now += 60_000;
    expect(await kc.credentials()).toEqual({ authorization: 'Bearer second' });
  });

  it('runs an exec credential plugin with KUBERNETES_EXEC_INFO and caches until expiry', async () => {
    const plugin = join(dir.path, 'plugin.sh');
    const counter = join(dir.path, 'runs');
    writeFileSync(
      plugin,
      [
        '#!/bin/sh',
        `echo run >> ${counter}`,
        'case "$KUBERNETES_EXEC_INFO" in *\'"server":"https://10.0.0.1:6443/"\'*) ;; *) exit 3;; esac',
        'echo "{\\"apiVersion\\":\\"client.authentication.k8s.io/v1\\",\\"kind\\":\\"ExecCredential\\",\\"status\\":{\\"token\\":\\"$1-$GREETING\\",\\"expirationTimestamp\\":\\"2030-01-01T00:00:00Z\\"}}"',
      ].join('\n'),
    );
    chmodSync(plugin, 0o755);
    let now = Date.parse('2029-12-31T23:59:00Z');
    const kc = loadKubeConfig({
      kubeconfig: kubeconfig({
        users: [
          '- name: u1',
          '  user:',
          '    exec:',
          '      apiVersion: client.authentication.k8s.io/v1',
          '      command: ./plugin.sh',
          '      args: [abc]',
          '      env: [{name: GREETING, value: hi}]',
          '      provideClusterInfo: true',
        ].join('\n'),
      }),
      now: () => now,
    });
    expect(await kc.credentials()).toEqual({ authorization: 'Bearer abc-hi' });
    expect(await kc.credentials()).toEqual({ authorization: 'Bearer abc-hi' });
    now = Date.parse('2030-01-01T00:00:01Z');
    await kc.credentials();
    const { readFileSync } = await import('node:fs');
    expect(readFileSync(counter, 'utf8')).toBe('run\nrun\n');
  });

  it('reports a failing exec plugin on the request, naming the command', async () => {
    const kc = loadKubeConfig({
      kubeconfig: kubeconfig({
        users:
          '- name: u1\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n      command: /bin/false',
      }),
    });
    await expect(kc.credentials()).rejects.toThrow(/exec credential plugin "\/bin\/false": /);
  });

  it.each([
    ['an unreadable file', undefined, /cannot load Kubernetes config from \/nonexistent: ENOENT/],
    ['not YAML', 'clusters: [', /not YAML/],
    [
      'no server',
      'clusters:\n- name: c1\n  cluster: {}\ncontexts:\n- name: x\n  context: {cluster: c1}\ncurrent-context: x\n',
      /names no cluster server/,
    ],
    [
      'an auth-provider',
      'clusters:\n- name: c1\n  cluster: {server: "https://a"}\nusers:\n- name: u\n  user: {auth-provider: {name: oidc}}\ncontexts:\n- name: x\n  context: {cluster: c1, user: u}\ncurrent-context: x\n',
      /auth-provider "oidc" is not supported/,
    ],
    [
      'a certificate without its key',
      `clusters:\n- name: c1\n  cluster: {server: "https://a"}\nusers:\n- name: u\n  user: {client-certificate-data: ${b64('C')}}\ncontexts:\n- name: x\n  context: {cluster: c1, user: u}\ncurrent-context: x\n`,
      /client certificate needs its key/,
    ],
  ])('refuses %s with InvalidArgument', (_what, text, message) => {
    const path = text === undefined ? '/nonexistent' : join(dir.path, 'bad');
    if (text !== undefined) writeFileSync(path, text);
    expect(() => loadKubeConfig({ kubeconfig: path })).toThrow(message);
    try {
      loadKubeConfig({ kubeconfig: path });
    } catch (e) {
      expect(e).toMatchObject({ code: 'InvalidArgument' });
    }
  });
});

describe('loadKubeConfig in a pod', () => {
  it('uses the service account token and CA with the service host (IPv6 bracketed)', async () => {
    writeFileSync(join(dir.path, 'ca.crt'), 'SA-CA');
    writeFileSync(join(dir.path, 'token'), 'sa-token');
    const kc = loadKubeConfig({
      env: { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443' },
      serviceAccountDir: dir.path,
    });
    expect(kc).toMatchObject({
      server: 'https://[fd00::1]:443',
      tls: { ca: 'SA-CA', rejectUnauthorized: true },
    });
    expect(await kc.credentials()).toEqual({ authorization: 'Bearer sa-token' });
  });

  it('says what is missing outside a pod', () => {
    expect(() => loadKubeConfig({ env: {}, serviceAccountDir: dir.path })).toThrow(
      /in-cluster service account: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set/,
    );
  });
});
