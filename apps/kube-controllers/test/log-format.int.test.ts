// NETLEDGER_LOG_FORMAT on bin/netledger-kube-controllers (the built executable): json lines with
// Calico's level names, text lines, and a clear one-line refusal of any other value. The
// Kubernetes API is a local HTTP server that answers 404 to everything (no
// KubeControllersConfiguration: Calico's defaults apply), and the file store does not exist, so
// the process logs its start and then exits 1 on the store; the format is what is under test.
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createTempDir } from '@netledger/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const BIN = join(import.meta.dirname, '..', '..', '..', 'bin', 'netledger-kube-controllers');

let tmp: { path: string; remove: () => Promise<void> };
let api: Server;
let kubeconfig: string;
const requested: string[] = [];

beforeAll(async () => {
  tmp = await createTempDir('netledger-kc-log-format-');
  api = createServer((req, res) => {
    requested.push(`${req.method} ${req.url}`);
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        reason: 'NotFound',
        code: 404,
      }),
    );
  });
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  const { port } = api.address() as AddressInfo;
  kubeconfig = join(tmp.path, 'kubeconfig');
  await writeFile(
    kubeconfig,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters: [{name: c, cluster: {server: "http://127.0.0.1:' +
        port +
        '", insecure-skip-tls-verify: true}}]',
      'users: [{name: u, user: {token: t}}]',
      'contexts: [{name: x, context: {cluster: c, user: u}}]',
      'current-context: x',
      '',
    ].join('\n'),
  );
});

afterAll(async () => {
  await new Promise((resolve) => api?.close(resolve));
  await tmp?.remove();
});

/** Runs the executable to its exit with NETLEDGER_LOG_FORMAT set to `format`. */
async function runWithFormat(
  format: string,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(BIN, ['--kubeconfig', kubeconfig, '--log-level', 'debug'], {
    env: {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
      DATASTORE_TYPE: 'file',
      NETLEDGER_DATASTORE_PATH: join(tmp.path, 'missing', 'store.json'),
      NETLEDGER_LOG_FORMAT: format,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const status = await new Promise<number | null>((resolve) => child.once('close', resolve));
  return { status, stdout, stderr };
}

const lines = (text: string): string[] => text.split('\n').filter((l) => l !== '');

describe('bin/netledger-kube-controllers NETLEDGER_LOG_FORMAT', () => {
  it('json: every log line is a JSON object with a Calico level name', async () => {
    const r = await runWithFormat('json');
    expect(r.status, r.stderr).toBe(1);
    expect(requested.some((p) => p.includes('kubecontrollersconfigurations/default'))).toBe(true);
    const logged = lines(r.stdout);
    expect(logged.length).toBeGreaterThan(0);
    for (const l of logged)
      expect(JSON.parse(l)).toMatchObject({
        ts: expect.any(String),
        level: expect.stringMatching(/^(trace|debug|info|warning|error|fatal|panic)$/),
        msg: expect.any(String),
      });
    expect(logged.map((l) => (JSON.parse(l) as { msg: string }).msg)).toContain(
      'starting netledger-kube-controllers',
    );
  });

  it('text: every log line is a text line (timestamp, [LEVEL], message), none is JSON', async () => {
    const r = await runWithFormat('text');
    expect(r.status, r.stderr).toBe(1);
    const logged = lines(r.stdout);
    expect(logged.length).toBeGreaterThan(0);
    for (const l of logged) {
      expect(l).toMatch(/^\d{4}-\d\d-\d\dT\S+Z \[(TRACE|DEBUG|INFO|WARNING|ERROR)\] \S/);
      expect(() => JSON.parse(l) as unknown).toThrow();
    }
    expect(logged.some((l) => l.includes('[INFO] starting netledger-kube-controllers'))).toBe(true);
  });

  it('another value: exit 2 with one line naming the variable and its values, nothing logged', async () => {
    const r = await runWithFormat('yaml');
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'netledger-kube-controllers: NETLEDGER_LOG_FORMAT yaml: not one of text, json\n',
    );
  });
});
