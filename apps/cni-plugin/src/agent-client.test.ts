// The installed executable as `netledger-ipam install` writes it when it finds a Perl: this
// directory's agent-client.pl behind agentClientScript's head, run by the real Perl against an
// agent stand-in on a unix socket, with a fake launcher in netledger-ipam.d/ that records how it
// was run. Which requests reach the agent, which go to the launcher, and with what.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createConnection } from 'node:net';
import type { Socket } from 'node:net';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { agentClientScript } from '@netledger/cni/install';
import { createTempDir } from '@netledger/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const PERL = '/usr/bin/perl';
const CLIENT = readFileSync(join(import.meta.dirname, 'agent-client.pl'), 'utf8');

let dir: { path: string; remove: () => Promise<void> };
let bin: string;
let socket: string;
let server: Server | undefined;
/** The requests the agent stand-in received (their bodies). */
let requests: string[];

beforeEach(async () => {
  dir = await createTempDir('netledger-agent-client-');
  bin = join(dir.path, 'bin');
  socket = join(dir.path, 'agent.sock');
  requests = [];
  install(bin);
});
afterEach(async () => {
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
  await dir.remove();
});

/** The executable and a fake launcher (records its $0, arguments, stdin and env) in `binDir`. */
function install(binDir: string, probeSocket = join(dir.path, 'agent.sock')): void {
  mkdirSync(join(binDir, 'netledger-ipam.d'), { recursive: true });
  writeFileSync(
    join(binDir, 'netledger-ipam'),
    agentClientScript({ perl: PERL, probeSocket, client: CLIENT }),
    { mode: 0o755 },
  );
  writeFileSync(
    join(binDir, 'netledger-ipam.d', 'netledger-ipam'),
    `#!/bin/sh\nprintf 'launcher %s [%s] tried=%s stdin=%s' "$0" "$*" "$NETLEDGER_AGENT_TRIED" "$(cat)"\nexit 3\n`,
    { mode: 0o755 },
  );
}

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
    // A run that exits before reading its input (the launcher missing) closes the pipe: EPIPE.
    child.stdin.on('error', () => undefined);
    child.stdin.end(o.stdin ?? conf());
  });
}

/** The config on stdin: `agent_socket` names the test's socket. */
const conf = (): string => JSON.stringify({ cniVersion: '1.0.0', ipam: { agent_socket: socket } });

/** Leaves a socket file at `path` that nobody listens on (as an agent killed with SIGKILL does). */
function staleSocket(path: string): void {
  const script = 'socket(S, 1, 1, 0) && bind(S, pack("S", 1) . $ARGV[0]) or exit 1';
  expect(spawnSync(PERL, ['-e', script, path]).status).toBe(0);
}

const launcherOf = (binDir = bin): string => join(binDir, 'netledger-ipam.d', 'netledger-ipam');

describe('the installed executable, Perl agent client', () => {
  it('hands ADD to the agent while its socket exists and prints its answer, stdout and stderr apart', async () => {
    await serve(answer('{"ips":[]}', 'a warning\n', 0));
    const r = await run(join(bin, 'netledger-ipam'), { args: ['x'] });
    expect(r).toEqual({ status: 0, stdout: '{"ips":[]}', stderr: 'a warning\n' });
    expect(requests).toHaveLength(1);
    expect(requests[0]).toContain('CNI_COMMAND=ADD\0');
    expect(requests[0]!.endsWith(`\0\0${conf()}`)).toBe(true);
  });

  it('passes on a CNI error the agent answered (exit 1), without running the launcher', async () => {
    await serve(answer('{"code":7,"msg":"bad"}', '', 1));
    expect(await run(join(bin, 'netledger-ipam'), { command: 'DEL' })).toEqual({
      status: 1,
      stdout: '{"code":7,"msg":"bad"}',
      stderr: '',
    });
  });

  it.each<[string, Handler]>([
    [
      'a fallback status (503)',
      (_q, _b, res) => {
        res.writeHead(503, { 'x-netledger-fallback': 'stopping' });
        res.end('stopping');
      },
    ],
    ['a refusal (403)', (_q, _b, res) => res.writeHead(403).end('root only')],
    [
      'an answer cut short (Content-Length not met)',
      (req) =>
        req.socket.end(
          'HTTP/1.0 200 OK\r\nx-cni-exit-code: 0\r\nx-cni-stdout-length: 2\r\ncontent-length: 99\r\n\r\n{}',
        ),
    ],
    ['a connection closed unanswered', (req) => req.socket.destroy()],
  ])(
    'falls back to the launcher on %s, with the same stdin and NETLEDGER_AGENT_TRIED',
    async (_, handler) => {
      await serve(handler);
      const r = await run(join(bin, 'netledger-ipam'), { args: ['a', 'b'] });
      expect(r.status).toBe(3);
      expect(r.stdout).toBe(`launcher ${launcherOf()} [a b] tried=${socket} stdin=${conf()}`);
      expect(requests.length).toBeLessThanOrEqual(1);
    },
  );

  it('asks the socket `agent_socket` names, else the default one', async () => {
    await serve(answer('{}', '', 0));
    expect(await run(join(bin, 'netledger-ipam'))).toMatchObject({ status: 0, stdout: '{}' });
    const none = JSON.stringify({ cniVersion: '1.0.0' });
    expect((await run(join(bin, 'netledger-ipam'), { stdin: none })).stdout).toBe(
      `launcher ${launcherOf()} [] tried=/run/netledger/node.sock stdin=${none}`,
    );
    const other = JSON.stringify({ ipam: { agent_socket: join(dir.path, 'nobody.sock') } });
    const r = await run(join(bin, 'netledger-ipam'), { stdin: other });
    expect(r.stdout).toBe(
      `launcher ${launcherOf()} [] tried=${dir.path}/nobody.sock stdin=${other}`,
    );
  });

  it.each<[string, { command?: string; env?: Record<string, string> }]>([
    ['a command the agent does not serve (VERSION)', { command: 'VERSION' }],
    ['no CNI_COMMAND (netledger-ipam install ...)', { env: { CNI_COMMAND: '' } }],
    ['NETLEDGER_AGENT_TRIED already set', { env: { NETLEDGER_AGENT_TRIED: '/x.sock' } }],
  ])('runs the launcher straight away for %s', async (_, o) => {
    await serve(answer('{}', '', 0));
    const r = await run(join(bin, 'netledger-ipam'), { ...o, args: ['install', '--bin-dir', 'x'] });
    expect(r.stdout).toMatch(new RegExp(`^launcher ${launcherOf()} \\[install --bin-dir x\\] `));
    expect(requests).toEqual([]);
  });

  it('runs the launcher when the socket it probes for is missing, nobody asked', async () => {
    const r = await run(join(bin, 'netledger-ipam'));
    expect(r).toMatchObject({
      status: 3,
      stdout: `launcher ${launcherOf()} [] tried= stdin=${conf()}`,
    });
  });

  it('falls back when nobody listens on the socket (an agent killed, its socket left)', async () => {
    staleSocket(socket);
    const r = await run(join(bin, 'netledger-ipam'));
    expect(r).toMatchObject({
      status: 3,
      stdout: `launcher ${launcherOf()} [] tried=${socket} stdin=${conf()}`,
    });
  });

  it.each<[string, () => string]>([
    [
      'an absolute symlink elsewhere',
      () => {
        symlinkSync(join(bin, 'netledger-ipam'), join(dir.path, 'link'));
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
    const r = await run(link(), { command: 'VERSION' });
    expect(r.stdout).toMatch(/^launcher (.*) \[\] /);
    const ran = /^launcher (\S+) /.exec(r.stdout)![1]!;
    expect(readFileSync(ran, 'utf8')).toBe(readFileSync(launcherOf(), 'utf8'));
    expect(ran.endsWith('/netledger-ipam.d/netledger-ipam')).toBe(true);
  });

  it('reports a missing launcher as CNI error JSON (999), exit 1', async () => {
    rmSync(launcherOf());
    const r = await run(join(bin, 'netledger-ipam'), { command: 'VERSION' });
    expect(r.status).toBe(1);
    expect(JSON.parse(r.stdout)).toEqual({
      code: 999,
      msg: `netledger-ipam: ${launcherOf()} is missing or unreadable: run netledger-ipam install again`,
    });
    expect(r.stderr).toBe('');
  });

  it("run as an older install's launcher ran it (perl FILE SOCKET LAUNCHER ARGS), serves alike", async () => {
    // An upgrade replaced netledger-ipam.d/netledger-ipam-agent.pl under a running old launcher.
    const source = join(bin, 'netledger-ipam.d', 'netledger-ipam-agent.pl');
    writeFileSync(source, CLIENT);
    await serve(answer('{"ok":1}', '', 0));
    const oldExec = (sock: string, stdin: string) =>
      run(PERL, { args: [source, sock, join(bin, 'netledger-ipam'), 'arg'], stdin });
    const none = JSON.stringify({ cniVersion: '1.0.0' });
    expect(await oldExec(socket, none)).toMatchObject({ status: 0, stdout: '{"ok":1}' });
    const stale = join(dir.path, 'stale.sock');
    staleSocket(stale);
    const r = await oldExec(stale, none);
    expect(r.stdout).toBe(`launcher ${launcherOf()} [arg] tried=${stale} stdin=${none}`);
  });

  it('an agent that takes the request and never answers: code 11 after agent_answer_timeout, the launcher not run', async () => {
    await serve(() => undefined); // reads the request, never answers
    const stdin = JSON.stringify({
      cniVersion: '1.0.0',
      ipam: { agent_socket: socket, agent_answer_timeout: 1 },
    });
    const started = Date.now();
    const r = await run(join(bin, 'netledger-ipam'), { stdin });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(r.status).toBe(1);
    expect(JSON.parse(r.stdout)).toEqual({
      code: 11,
      msg: `netledger-ipam: the node agent at ${socket} did not answer within 1 s: try again later`,
    });
    expect(requests).toHaveLength(1);
  });

  it('an agent that takes no connection (its queue full, as when stopped): falls back after agent_connect_timeout', async () => {
    // A listener with a backlog of 0 that never accepts: one queued connection fills it.
    const listener = spawn(
      PERL,
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
      // Fill the queue: connections are queued until one is refused for want of room (EAGAIN).
      for (;;) {
        const refused = await new Promise<boolean>((resolve) => {
          const c = createConnection({ path: socket });
          filler.push(c);
          c.once('connect', () => resolve(false));
          c.once('error', () => resolve(true));
        });
        if (refused) break;
        if (filler.length > 64) throw new Error('the queue never filled');
      }
      const stdin = JSON.stringify({
        cniVersion: '1.0.0',
        ipam: { agent_socket: socket, agent_connect_timeout: 1 },
      });
      const started = Date.now();
      const r = await run(join(bin, 'netledger-ipam'), { stdin });
      expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
      expect(r).toMatchObject({
        status: 3,
        stdout: `launcher ${launcherOf()} [] tried=${socket} stdin=${stdin}`,
      });
    } finally {
      for (const c of filler) c.destroy();
      listener.kill('SIGKILL');
    }
  });
});
