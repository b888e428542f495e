// NETLEDGER_LOG_FORMAT on bin/netledger-device serve (the built executable): json lines with
// Calico's level names, text lines, and a clear refusal of any other value. The state holds a
// device.json whose pool is refused, so the log has an error line beside the info ones; the
// revision has no usable pool, so nothing is set up on the host.
import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createDeviceClient } from '@netledger/device-daemon/client';
import { createTempDir } from '@netledger/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const BIN = join(import.meta.dirname, '..', '..', '..', 'bin', 'netledger-device');

let tmp: { path: string; remove: () => Promise<void> };

beforeAll(async () => {
  tmp = await createTempDir('netledger-device-log-format-');
  await mkdir(join(tmp.path, 'state'));
  await writeFile(
    join(tmp.path, 'state', 'device.json'),
    JSON.stringify({ network: { pools: { p: { bridge: 'pvbr9', subnet: '10.0.5.0/24' } } } }),
  );
});

afterAll(async () => {
  await tmp?.remove();
});

/**
 * Runs `serve` with NETLEDGER_LOG_FORMAT set to `format` until it logs that it listens (`ready`
 * tells from a line) and answers a health request, stops it with SIGTERM and returns its exit
 * status and stderr lines.
 */
async function serveWithFormat(
  format: string,
  ready: (line: string) => boolean,
): Promise<{ status: number | null; lines: string[] }> {
  const dir = join(tmp.path, format);
  await mkdir(dir);
  const child = spawn(
    BIN,
    [
      'serve',
      '--state',
      join(tmp.path, 'state'),
      '--data-dir',
      join(dir, 'data'),
      '--socket',
      join(dir, 'device.sock'),
      '--log-level',
      'debug',
    ],
    {
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', NETLEDGER_LOG_FORMAT: format },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  const client = createDeviceClient({ socketPath: join(dir, 'device.sock') });
  const lines: string[] = [];
  const closed = new Promise<number | null>((resolve) => child.once('close', resolve));
  try {
    await new Promise<void>((resolve, reject) => {
      void closed.then(() => reject(new Error(`exited early:\n${lines.join('\n')}`)));
      createInterface({ input: child.stderr }).on('line', (line) => {
        lines.push(line);
        // Its SIGTERM handler is set once it has answered a request.
        if (ready(line)) void client.health().then(() => resolve(), reject);
      });
    });
  } finally {
    child.kill('SIGTERM');
  }
  return { status: await closed, lines };
}

describe('bin/netledger-device serve NETLEDGER_LOG_FORMAT', () => {
  it('json: every log line is a JSON object with a Calico level name', async () => {
    const r = await serveWithFormat('json', (l) => l.includes('"msg":"listening"'));
    expect(r.status, r.lines.join('\n')).toBe(0);
    const records = r.lines.map((l) => JSON.parse(l) as { level: string; msg: string });
    for (const rec of records)
      expect(rec).toMatchObject({
        ts: expect.any(String),
        level: expect.stringMatching(/^(trace|debug|info|warning|error)$/),
        msg: expect.any(String),
      });
    expect(records.map((rec) => `${rec.level} ${rec.msg}`)).toEqual(
      expect.arrayContaining([
        'info IPAM subsystem initialized',
        'error revision refused; no revision in force',
        'info listening',
        'info stopped',
      ]),
    );
  });

  it('text: every log line is a text line (timestamp, [LEVEL], message), none is JSON', async () => {
    const r = await serveWithFormat('text', (l) => l.includes('[INFO] listening'));
    expect(r.status, r.lines.join('\n')).toBe(0);
    expect(r.lines.length).toBeGreaterThan(0);
    for (const l of r.lines) {
      expect(l).toMatch(/^\d{4}-\d\d-\d\dT\S+Z \[(TRACE|DEBUG|INFO|WARNING|ERROR)\] \S/);
      expect(() => JSON.parse(l) as unknown).toThrow();
    }
    expect(r.lines.some((l) => l.includes('[ERROR] revision refused; no revision in force'))).toBe(
      true,
    );
    expect(r.lines.at(-1)).toMatch(/\[INFO\] stopped$/);
  });

  it('another value: exit 2, the first line naming the variable and its values, nothing served', async () => {
    const dir = join(tmp.path, 'yaml');
    const child = spawn(
      BIN,
      ['serve', '--data-dir', join(dir, 'data'), '--socket', join(dir, 'device.sock')],
      {
        env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', NETLEDGER_LOG_FORMAT: 'yaml' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const status = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect(status).toBe(2);
    expect(stdout).toBe('');
    // A usage error: the reason on the first line, then the usage.
    const [first, ...rest] = stderr.split('\n');
    expect(first).toBe('netledger-device: NETLEDGER_LOG_FORMAT yaml: not one of text, json');
    expect(rest[0]).toBe('usage:');
    expect(stderr).not.toContain('"level"');
  });
});
