// bin/netledger-node's interface as the issue pins it: `--nodename NAME [--socket PATH]`, the
// store from netledgerctl's settings, and its exit statuses.
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createTempDir } from '@netledger/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT } from './agent-harness.js';

let tmp: { path: string; remove: () => Promise<void> };

const run = (args: string[], env: Record<string, string> = {}) =>
  spawnSync(AGENT, args, {
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });

beforeAll(async () => {
  tmp = await createTempDir('netledger-agent-cli-');
});

afterAll(async () => {
  await tmp?.remove();
});

describe('bin/netledger-node', () => {
  it('--help names the interface and the store settings; exit 0', () => {
    const r = run(['--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('Usage: netledger-node --nodename NAME [--socket PATH]');
    expect(r.stdout).toContain('default /run/netledger/node.sock');
    for (const name of [
      'DATASTORE_TYPE',
      'NETLEDGER_DATASTORE_PATH',
      'ETCD_ENDPOINTS',
      'KUBECONFIG',
    ])
      expect(r.stdout).toContain(name);
  });

  it.each<[string, string[], Record<string, string>, RegExp]>([
    ['no --nodename', [], {}, /--nodename is required/],
    ['an unknown flag', ['--nodename', 'n1', '--port', '1'], {}, /unknown argument "--port"/],
    [
      'an unknown store type',
      ['--nodename', 'n1', '--socket', '/tmp/unused.sock'],
      { DATASTORE_TYPE: 'consul' },
      /unknown datastore type "consul"/,
    ],
    [
      'an unknown NETLEDGER_LOG_FORMAT',
      ['--nodename', 'n1', '--socket', '/tmp/unused.sock'],
      { NETLEDGER_LOG_FORMAT: 'yaml' },
      /NETLEDGER_LOG_FORMAT yaml: not one of text, json/,
    ],
    [
      'etcd without endpoints',
      ['--nodename', 'n1', '--socket', '/tmp/unused.sock'],
      { DATASTORE_TYPE: 'etcdv3' },
      /needs etcd endpoints/,
    ],
  ])('%s: exit 2, saying why', (_what, args, env, message) => {
    const r = run(args, env);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(message);
  });

  it('a socket path where a regular file is in the way: exit 1, nothing served', async () => {
    const path = join(tmp.path, 'file.sock');
    spawnSync('touch', [path]);
    const r = run(['--nodename', 'n1', '--socket', path], {
      NETLEDGER_DATASTORE_PATH: join(tmp.path, 'ds.json'),
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`${path} exists and is not a socket`);
  });

  it('NETLEDGER_LOG_FORMAT=json: its lines are JSON objects with Calico level names', async () => {
    const child = spawn(
      AGENT,
      ['--nodename', 'n1', '--socket', join(tmp.path, 'json', 'node.sock'), '--log-level', 'debug'],
      {
        env: {
          PATH: process.env['PATH'] ?? '/usr/bin:/bin',
          NETLEDGER_DATASTORE_PATH: join(tmp.path, 'ds.json'),
          NETLEDGER_LOG_FORMAT: 'json',
        },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const lines: string[] = [];
    try {
      await new Promise<void>((resolve, reject) => {
        void exited.then(() => reject(new Error(`exited early:\n${lines.join('\n')}`)));
        createInterface({ input: child.stderr }).on('line', (line) => {
          lines.push(line);
          if (line.includes('"msg":"serving node n1')) resolve();
        });
      });
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    for (const l of lines)
      expect(JSON.parse(l)).toMatchObject({
        ts: expect.any(String),
        level: expect.stringMatching(/^(trace|debug|info|warning|error)$/),
        msg: expect.any(String),
      });
  });

  it('status with no agent on the socket: exit 3', () => {
    const r = run(['status', '--socket', join(tmp.path, 'none.sock')]);
    expect(r.status).toBe(3);
    expect(r.stderr).toContain('no agent answers on');
  });
});
