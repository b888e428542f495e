// The static client as the build makes it (dist/client/linux-<arch>/netledger-ipam), laid out as
// `netledger-ipam install` lays it out, against an agent stand-in on a unix socket, with a fake
// Node.js fallback in netledger-ipam.d/ (its `node` a shell script recording how it was run).
// Which requests reach the agent, which go to the fallback, with what, and how long it waits.
import { spawn } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createConnection } from 'node:net';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { createTempDir } from '@netledger/testkit';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ROOT } from './exec-harness.js';

const GOARCH = process.arch === 'arm64' ? 'arm64' : 'amd64';
const BUILT = join(
  ROOT,
  'apps',
  'cni-plugin',
  'dist',
  'client',
  `linux-${GOARCH}`,
  'netledger-ipam',
);

let dir: { path: string; remove: () => Promise<void> };
let bin: string;
let socket: string;
let server: Server | undefined;
/** The requests the agent stand-in received (their bodies). */
let requests: string[];

beforeEach(async () => {
  dir = await createTempDir('netledger-static-client-');
  bin = join(dir.path, 'bin');
  socket = join(dir.path, 'agent.sock');
  requests = [];
  mkdirSync(join(bin, 'netledger-ipam.d'), { recursive: true });
  copyFileSync(BUILT, join(bin, 'netledger-ipam'));
  writeFileSync(join(bin, 'netledger-ipam.d', 'netledger-ipam.mjs'), '// the bundle\n');
  // The fallback answers (status 100: "answered, exit 0") with what it was given.
  writeFileSync(
    join(bin, 'netledger-ipam.d', 'node'),
    `#!/bin/sh\nprintf 'fallback %s [%s] reason=%s client=%s stdin=%s' "$1" "$*" "$NETLEDGER_FALLBACK_REASON" "$NETLEDGER_CLIENT" "$(cat)"\nexit 100\n`,
    { mode: 0o755 },
  );
});
afterEach(async () => {
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
  await dir.remove();
});

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;

/** An agent stand-in on `path` (the test's socket unless told). */
async function serve(handler: Handler, path = socket): Promise<void> {
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('latin1');
    req.on('data', (d: string) => (body += d));
    req.on('end', () => {
      requests.push(body);
      handler(req, body, res);
    });
  });
  await new Promise<void>((r) => server!.listen(path, r));
}

/** Answers as the agent does (agent-protocol.ts answerResponse): stdout, then stderr. */
const answer =
  (stdout: string, stderr: string, exitCode: number): Handler =>
  (_req, _body, res) => {
    const body = Buffer.from(stdout + stderr);
    res.writeHead(200, {
      'x-cni-exit-code': String(exitCode),
      'x-cni-stdout-length': String(Buffer.byteLength(stdout)),
      'content-type': 'application/octet-stream',
      'content-length': String(body.length),
    });
    res.end(body);
  };

interface Ran {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `file` as a runtime would (never spawnSync: the stand-in answers from this process). */
function run(
  file: string,
  o: { command?: string; env?: Record<string, string>; stdin?: string; args?: string[] } = {},
): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, o.args ?? [], {
      env: {
        PATH: '/usr/bin:/bin',
        CNI_COMMAND: o.command ?? 'ADD',
        CNI_CONTAINERID: 'c1',
        ...o.env,
      },
      cwd: dir.path,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
    child.stdin.on('error', () => undefined);
    child.stdin.end(o.stdin ?? conf());
  });
}

/** The config on stdin: `agent_socket` (under `ipam`) names the test's socket. */
const conf = (ipam: Record<string, unknown> = {}): string =>
  JSON.stringify({ cniVersion: '1.0.0', ipam: { agent_socket: socket, ...ipam } });
const client = (): string => join(bin, 'netledger-ipam');
const fallback = (o: { args?: string; reason: string; stdin?: string }): string =>
  `fallback ${join(bin, 'netledger-ipam.d', 'netledger-ipam.mjs')} [${join(bin, 'netledger-ipam.d', 'netledger-ipam.mjs')}${o.args ? ` ${o.args}` : ''}] reason=${o.reason} client=${client()} stdin=${o.stdin ?? conf()}`;

/** Leaves a socket file at `path` that nobody listens on (as an agent killed with SIGKILL does). */
async function staleSocket(path: string): Promise<void> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(path, r));
  // Closing a listener removes its file: keep a link to it, as a killed process leaves it.
  linkSync(path, `${path}.keep`);
  await new Promise<void>((r) => s.close(() => r()));
  renameSync(`${path}.keep`, path);
}

describe('the static client', () => {
  it('hands ADD to the agent at `agent_socket` and prints its answer, stdout and stderr apart', async () => {
    await serve(answer('{"ips":[]}', 'a warning\n', 0));
    const r = await run(client());
    expect(r).toEqual({ status: 0, stdout: '{"ips":[]}', stderr: 'a warning\n' });
    expect(requests).toHaveLength(1);
    expect(requests[0]).toContain('CNI_COMMAND=ADD\0');
    expect(requests[0]!.endsWith(`\0\0${conf()}`)).toBe(true);
  });

  it('reads agent_socket from ipam first, then from the top level', async () => {
    await serve(answer('{}', '', 0));
    const top = JSON.stringify({ cniVersion: '1.0.0', agent_socket: socket, ipam: {} });
    expect(await run(client(), { stdin: top })).toMatchObject({ status: 0, stdout: '{}' });
    const both = JSON.stringify({
      cniVersion: '1.0.0',
      agent_socket: socket,
      ipam: { agent_socket: join(dir.path, 'nobody.sock') },
    });
    const r = await run(client(), { stdin: both });
    expect(r.stdout).toBe(
      fallback({ reason: `${join(dir.path, 'nobody.sock')}: ENOENT`, stdin: both }),
    );
  });

  it('passes on a CNI error the agent answered (exit 1), without running the fallback', async () => {
    await serve(answer('{"code":7,"msg":"bad"}', '', 1));
    expect(await run(client(), { command: 'DEL' })).toEqual({
      status: 1,
      stdout: '{"code":7,"msg":"bad"}',
      stderr: '',
    });
  });

  it.each<[string, Handler, string]>([
    [
      'a fallback status (421)',
      (_q, _b, res) => {
        res.writeHead(421, { 'x-netledger-fallback': 'another node' });
        res.end();
      },
      'the agent answered 421: another node',
    ],
    [
      'a refusal (403)',
      (_q, _b, res) => res.writeHead(403).end('root only'),
      'the agent answered 403: root only',
    ],
    [
      'an answer cut short (Content-Length not met)',
      (req) =>
        req.socket.end(
          'HTTP/1.0 200 OK\r\nx-cni-exit-code: 0\r\nx-cni-stdout-length: 2\r\ncontent-length: 99\r\n\r\n{}',
        ),
      'an incomplete answer',
    ],
    ['a connection closed unanswered', (req) => req.socket.destroy(), 'no answer'],
  ])('runs the fallback on %s, with the same stdin and the reason', async (_, handler, reason) => {
    await serve(handler);
    const r = await run(client());
    expect(r).toMatchObject({ status: 0, stdout: fallback({ reason }) });
    expect(requests).toHaveLength(1);
  });

  it('runs the fallback when no socket is there, or nobody listens on it (an agent killed)', async () => {
    expect((await run(client())).stdout).toBe(fallback({ reason: `${socket}: ENOENT` }));
    await staleSocket(socket);
    expect((await run(client())).stdout).toBe(fallback({ reason: `${socket}: ECONNREFUSED` }));
  });

  it('passes verbs (install ...) and their standard input to the fallback, asking no agent', async () => {
    await serve(answer('{}', '', 0));
    const r = await run(client(), { args: ['install', '--bin-dir', 'x'], stdin: 'in' });
    expect(r.stdout).toBe(fallback({ args: 'install --bin-dir x', reason: '', stdin: 'in' }));
    expect(requests).toEqual([]);
  });

  it.each<[string, () => string]>([
    [
      'an absolute symlink elsewhere',
      () => {
        symlinkSync(client(), join(dir.path, 'link'));
        return join(dir.path, 'link');
      },
    ],
    [
      'a relative symlink to a relative symlink',
      () => {
        mkdirSync(join(dir.path, 'a', 'b'), { recursive: true });
        symlinkSync('../bin/netledger-ipam', join(dir.path, 'a', 'first'));
        symlinkSync('../first', join(dir.path, 'a', 'b', 'second'));
        return join(dir.path, 'a', 'b', 'second');
      },
    ],
  ])('finds netledger-ipam.d/ beside the installed file through %s', async (_, link) => {
    const r = await run(link());
    expect(r.stdout).toBe(fallback({ reason: `${socket}: ENOENT` }));
  });

  it('without a fallback installed, fails with 11 naming the socket', async () => {
    rmSync(join(bin, 'netledger-ipam.d'), { recursive: true });
    const r = await run(client());
    expect(r.status).toBe(1);
    expect(JSON.parse(r.stdout)).toEqual({
      cniVersion: '1.0.0',
      code: 11,
      msg: `no netledger-node answers at ${socket} (${socket}: ENOENT), and no fallback is installed in ${join(bin, 'netledger-ipam.d')}`,
    });
  });

  it('reports Node.js failing before the plugin answered as CNI error JSON (999)', async () => {
    writeFileSync(join(bin, 'netledger-ipam.d', 'node'), '#!/bin/sh\necho partial\nexit 9\n');
    const r = await run(client());
    expect(r.status).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({
      code: 999,
      msg: expect.stringMatching(/exited with status 9 before the plugin answered/) as unknown,
    });
  });

  it('an agent that takes the request and never answers: 11 after agent_answer_timeout, the fallback not run', async () => {
    await serve(() => undefined); // reads the request, never answers
    const r = await run(client(), { stdin: conf({ agent_answer_timeout: 1 }) });
    expect(r.status).toBe(1);
    expect(JSON.parse(r.stdout)).toEqual({
      cniVersion: '1.0.0',
      code: 11,
      msg: `the node agent at ${socket} did not answer within 1 s: try again later`,
    });
    expect(requests).toHaveLength(1);
  });

  it('an agent that takes no connection (its queue full, as when stopped): runs the fallback', async () => {
    // A listener with a backlog of 0 that never accepts: one queued connection fills it.
    const listener = spawn(
      'perl',
      [
        '-e',
        'socket(S, 1, 1, 0) && bind(S, pack("S", 1) . $ARGV[0]) && listen(S, 0) or exit 1; $| = 1; print "ready\\n"; sleep 60',
        socket,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const filler: Socket[] = [];
    try {
      await new Promise<void>((resolve, reject) => {
        listener.stdout.once('data', () => resolve());
        listener.once('exit', () => reject(new Error('the listener did not start')));
      });
      for (;;) {
        const refused = await new Promise<boolean>((resolve) => {
          const c = createConnection({ path: socket });
          filler.push(c);
          c.once('connect', () => resolve(false));
          c.once('error', () => resolve(true));
        });
        if (refused) break;
        if (filler.length > 1000) throw new Error('the queue never filled');
      }
      const r = await run(client(), { stdin: conf({ agent_connect_timeout: 1 }) });
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(
        /^fallback .* reason=.*agent\.sock: (EAGAIN|no connection in time) /,
      );
    } finally {
      for (const c of filler) c.destroy();
      listener.kill('SIGKILL');
    }
  });

  it('a runtime that kills the client kills the fallback with it', async () => {
    const pidFile = join(dir.path, 'fallback.pid');
    writeFileSync(
      join(bin, 'netledger-ipam.d', 'node'),
      `#!/bin/sh\necho $$ > ${pidFile}\nexec sleep 600\n`,
    );
    const child = spawn(client(), [], {
      env: { PATH: '/usr/bin:/bin', CNI_COMMAND: 'ADD', CNI_CONTAINERID: 'c1' },
    });
    child.stdin.end(conf());
    await vi.waitFor(() =>
      expect(existsSync(pidFile) && readFileSync(pidFile, 'utf8')).toMatch(/\d/),
    );
    const pid = Number(readFileSync(pidFile, 'utf8'));
    child.kill('SIGKILL');
    // Gone, or a zombie nobody has reaped yet (its state in /proc/PID/stat is Z).
    const state = (): string => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0]!;
      } catch {
        return 'gone';
      }
    };
    await vi.waitFor(() => expect(['gone', 'Z']).toContain(state()));
  });
});
