// The Node client against agent stand-ins on a real unix socket: an answer, an agent that takes
// the request and never answers (bounded: "try again later", never the runtime's own timeout), and
// one that takes no connection (its queue full, as when it is stopped): a fallback.
import { spawn } from 'node:child_process';
import { createConnection, createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { join } from 'node:path';
import { createTempDir } from '@netledger/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { answerResponse } from './agent-protocol.js';
import { askAgent } from './ask-agent.js';

let dir: { path: string; remove: () => Promise<void> };
let socket: string;
let server: Server | undefined;
const open: Socket[] = [];

beforeEach(async () => {
  dir = await createTempDir('netledger-ask-agent-');
  socket = join(dir.path, 'agent.sock');
});
afterEach(async () => {
  for (const s of open.splice(0)) s.destroy();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
  await dir.remove();
});

/** A stand-in that calls `onRequest` with each connection once its request has arrived. */
async function serve(onRequest: (s: Socket) => void): Promise<void> {
  server = createServer((s) => {
    open.push(s);
    let got = '';
    s.on('data', (d: Buffer) => {
      got += d.toString('latin1');
      if (got.includes('\r\n\r\n') && got.endsWith('{}')) onRequest(s);
    });
  });
  await new Promise<void>((r) => server!.listen(socket, r));
}

const ask = (o: { connectTimeoutMs?: number; answerTimeoutMs?: number } = {}) =>
  askAgent({
    socketPath: socket,
    request: { env: { CNI_COMMAND: 'ADD' }, stdin: '{}' },
    client: 'test',
    ...o,
  });

describe('askAgent', () => {
  it('returns the answer of an agent that answers', async () => {
    await serve((s) => {
      const { headers, body } = answerResponse({ stdout: '{"ips":[]}', stderr: '', exitCode: 0 });
      const head = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`);
      s.end(Buffer.concat([Buffer.from(`HTTP/1.0 200 OK\r\n${head.join('')}\r\n`), body]));
    });
    expect(await ask()).toEqual({
      kind: 'answer',
      output: { stdout: '{"ips":[]}', stderr: '', exitCode: 0 },
    });
  });

  it('an agent that takes the request and never answers: unanswered after the answer timeout', async () => {
    let took = false;
    await serve(() => (took = true));
    const started = Date.now();
    const r = await ask({ answerTimeoutMs: 300 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(took).toBe(true);
    expect(r).toEqual({
      kind: 'unanswered',
      reason: `the node agent at ${socket} did not answer within 0.3 s`,
    });
  });

  it('an agent that takes no connection (its queue full): a fallback, the request never sent', async () => {
    // A listener with a backlog of 0 that never accepts: one queued connection fills it.
    const listener = spawn(
      '/usr/bin/perl',
      [
        '-e',
        'socket(S, 1, 1, 0) && bind(S, pack("S", 1) . $ARGV[0]) && listen(S, 0) or exit 1; $| = 1; print "ready\\n"; sleep 60',
        socket,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      await new Promise<void>((resolve, reject) => {
        listener.stdout.once('data', () => resolve());
        listener.once('exit', () => reject(new Error('the listener did not start')));
      });
      for (;;) {
        const refused = await new Promise<boolean>((resolve) => {
          const c = createConnection({ path: socket });
          open.push(c);
          c.once('connect', () => resolve(false));
          c.once('error', () => resolve(true));
        });
        if (refused) break;
        if (open.length > 64) throw new Error('the queue never filled');
      }
      const r = await ask({ connectTimeoutMs: 300, answerTimeoutMs: 60_000 });
      expect(r).toMatchObject({ kind: 'fallback' });
    } finally {
      listener.kill('SIGKILL');
    }
  });
});
