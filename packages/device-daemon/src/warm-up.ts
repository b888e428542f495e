// @netledger/device-daemon/warm-up: what netledger-device's start-up snapshot runs while it is
// built. Apart from the other entries, so a bundle that does not warm up carries none of it.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runClientVerb } from './client-verbs.js';
import { describeFailure, parseCommandLine } from './command-line.js';

// What a daemon answers, per request line: enough for every client verb to parse its answer.
const LEASE = {
  pool: 'p',
  owner: 'c',
  interface: 'eth0',
  family: 4,
  address: '10.0.5.2',
  mac: '02:00:0a:00:05:02',
  kind: 'dynamic',
};
const ANSWERS: Record<string, [number, string]> = {
  'POST /v1/containers/c/start': [
    200,
    JSON.stringify({
      container: 'c',
      leases: [LEASE],
      config: { entries: [['lxc.uts.name', 'c']] },
      lxc: 'lxc.uts.name = c\n',
    }),
  ],
  'POST /v1/containers/x/start': [
    409,
    JSON.stringify({
      error: { code: 'UnknownPool', message: "platform 'x' references unknown pool 'p'" },
    }),
  ],
  'POST /v1/containers/c/stop': [200, JSON.stringify({ container: 'c', leases: [LEASE] })],
  'POST /v1/containers/c/teardown': [200, JSON.stringify({ container: 'c', released: [LEASE] })],
  'POST /v1/apply': [
    200,
    JSON.stringify({ pools: [], containers: [], released: [], warnings: [] }),
  ],
  'GET /v1/leases': [200, JSON.stringify({ leases: [LEASE] })],
  'GET /v1/pools': [200, JSON.stringify({ pools: [] })],
  'GET /v1/health': [200, JSON.stringify({ ok: true, revision: true, leases: 1, running: [] })],
  'GET /metrics': [200, '# HELP netledger_device_leases x\n'],
};

/**
 * Runs every client verb in-process against a fake daemon on a temporary unix socket while the
 * start-up snapshot is built, so the modules and object shapes their paths need are loaded and
 * initialised in the snapshot. The server and its directory are gone before the snapshot is taken.
 */
export async function warmUp(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'netledger-device-warm-up-'));
  const socket = join(dir, 'api.sock');
  const server = createServer((conn) => {
    let head = '';
    conn.setEncoding('latin1');
    conn.on('data', (d: string) => {
      head += d;
      if (!head.includes('\r\n\r\n')) return;
      const line = head.slice(0, head.indexOf(' HTTP/'));
      const [status, body] = ANSWERS[line] ?? [404, '{}'];
      conn.end(
        `HTTP/1.1 ${status} X\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
    });
  });
  try {
    await new Promise<void>((resolve) => server.listen(socket, resolve));
    const quiet = (): void => undefined;
    const argv = ['--socket', socket];
    for (const args of [
      ['start', 'c'],
      ['start', 'c', '--output', 'json'],
      ['stop', 'c'],
      ['teardown', 'c'],
      ['apply'],
      ['leases'],
      ['pools'],
      ['health'],
      ['metrics'],
    ]) {
      await runClientVerb(parseCommandLine([...args, ...argv]), quiet);
    }
    await runClientVerb(parseCommandLine(['start', 'x', ...argv]), quiet).then(
      () => {
        throw new Error('warm-up: a refused start succeeded');
      },
      (e: unknown) => describeFailure(e, true),
    );
  } finally {
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  }
}
