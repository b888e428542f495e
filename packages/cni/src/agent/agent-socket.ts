import { chmod, lstat, mkdir, unlink } from 'node:fs/promises';
import { createConnection } from 'node:net';
import type { Server } from 'node:net';
import { dirname } from 'node:path';

/** The socket cannot be set up; the agent does not start (exit status 1). */
export class AgentSocketError extends Error {
  override readonly name = 'AgentSocketError';
}

const code = (e: unknown): string | undefined => (e as NodeJS.ErrnoException).code;

/** Whether something accepts connections on the unix socket `path`. */
function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createConnection({ path });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

/**
 * Makes `path` ready to listen on, so that only the agent's user (root on a node) can connect:
 * its directory is created mode 0700, or, if it exists, must be a real directory owned by that
 * user (not a symlink), and is made 0700; a socket left at `path` by an agent that died is
 * removed, while one another agent still answers on, or a file that is not a socket, stops the
 * start (AgentSocketError).
 */
export async function prepareSocketPath(path: string): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const st = await lstat(dir);
  if (!st.isDirectory()) throw new AgentSocketError(`${dir} is not a directory`);
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) {
    throw new AgentSocketError(`${dir} is owned by uid ${st.uid}, not by this agent's (${uid})`);
  }
  if ((st.mode & 0o077) !== 0) await chmod(dir, 0o700);
  let existing;
  try {
    existing = await lstat(path);
  } catch (e) {
    if (code(e) === 'ENOENT') return;
    throw e;
  }
  if (!existing.isSocket()) throw new AgentSocketError(`${path} exists and is not a socket`);
  if (await answers(path)) throw new AgentSocketError(`another agent answers on ${path}`);
  await unlink(path); // a dead agent's
}

/**
 * Listens on the unix socket `path` (prepared by {@link prepareSocketPath}), created mode 0600:
 * the umask is narrowed while the socket is bound, so it is never reachable by others, even for
 * an instant. Returns the socket's inode, which {@link removeSocket} checks.
 */
export async function listenPrivately(server: Server, path: string): Promise<number> {
  const umask = process.umask(0o177);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ path, backlog: 511 }, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } finally {
    process.umask(umask);
  }
  await chmod(path, 0o600);
  return (await lstat(path)).ino;
}

/** Removes the socket at `path` if it is still the one this agent bound (inode `ino`). */
export async function removeSocket(path: string, ino: number): Promise<void> {
  try {
    if ((await lstat(path)).ino === ino) await unlink(path);
  } catch (e) {
    if (code(e) !== 'ENOENT') throw e;
  }
}
