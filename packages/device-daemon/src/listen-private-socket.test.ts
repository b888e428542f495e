// The API socket is 0600 from the moment it can be reached, replacing a stale socket file. The
// cross-user check (another user refused) is listen-private-socket.int.test.ts: it needs root.
import { chmod, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SOCKET_MODE, listenPrivateSocket } from './listen-private-socket.js';

let dir: string;
let server: Server;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nl-sock-'));
  await chmod(dir, 0o755);
  server = createServer((c) => c.end('hello\n'));
});
afterEach(async () => {
  if (server.listening) await new Promise<void>((r) => server.close(() => r()));
  await rm(dir, { recursive: true, force: true });
});

describe('listenPrivateSocket', () => {
  it('listens with mode 0600, replacing a stale socket file, and leaves no temporary directory', async () => {
    const path = join(dir, 'api.sock');
    await writeFile(path, 'stale');
    await listenPrivateSocket(server, path);
    const st = await stat(path);
    expect(st.isSocket()).toBe(true);
    expect(st.mode & 0o777).toBe(SOCKET_MODE);
    expect(await readdir(dir)).toEqual(['api.sock']);
  });

  it('rejects when the directory does not exist, and is not listening', async () => {
    await expect(listenPrivateSocket(server, join(dir, 'missing', 'api.sock'))).rejects.toThrow(
      /ENOENT/,
    );
    expect(server.listening).toBe(false);
  });
});
