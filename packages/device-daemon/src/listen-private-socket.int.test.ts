// The API socket refuses other users: a client running as a throwaway unprivileged user, created
// here (useradd, so it needs root) and removed afterwards, gets EACCES while root connects.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { listenPrivateSocket } from './listen-private-socket.js';

/** A system user of our own, so the test never depends on (or skips for) a user of the machine. */
const USER = `nl-sock-${randomBytes(3).toString('hex')}`;
let other: { uid: number; gid: number } | undefined;
let dir: string;
let server: Server;

beforeAll(() => {
  if (process.getuid?.() !== 0) throw new Error('the cross-user socket test must run as root');
  execFileSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', USER], {
    stdio: 'pipe',
  });
  const id = (flag: string): number =>
    Number(execFileSync('id', [flag, USER], { encoding: 'utf8' }).trim());
  other = { uid: id('-u'), gid: id('-g') };
});
afterAll(() => {
  if (other !== undefined) execFileSync('userdel', [USER], { stdio: 'pipe' });
});
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nl-sock-'));
  // Others may reach the socket's directory: only the socket's own mode keeps them out.
  await chmod(dir, 0o755);
  server = createServer((c) => c.end('hello\n'));
});
afterEach(async () => {
  if (server.listening) await new Promise<void>((r) => server.close(() => r()));
  await rm(dir, { recursive: true, force: true });
});

/** Connects as `uid` from another process; resolves to 'connected' or the error code. */
async function connectAs(uid: number, gid: number, path: string): Promise<string> {
  const script =
    "const s = require('net').connect(process.argv[1]);" +
    "s.on('data', () => { process.stdout.write('connected'); s.destroy(); });" +
    "s.on('error', (e) => process.stdout.write(e.code));";
  const child = spawn(process.execPath, ['-e', script, path], {
    uid,
    gid,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  await once(child, 'exit');
  return out;
}

describe('listenPrivateSocket across users', () => {
  it('refuses another user while its owner connects; a 0666 socket would not', async () => {
    const { uid, gid } = other!;
    const path = join(dir, 'api.sock');
    await listenPrivateSocket(server, path);
    expect(await connectAs(uid, gid, path)).toBe('EACCES');
    expect(await connectAs(0, 0, path)).toBe('connected');
    // The check can fail: with the mode opened, the same client gets in.
    await chmod(path, 0o666);
    expect(await connectAs(uid, gid, path)).toBe('connected');
  });
});
