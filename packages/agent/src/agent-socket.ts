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

const octal = (mode: number): string => (mode & 0o7777).toString(8).padStart(4, '0');

/**
 * Makes `path` ready to listen on, so that only the agent's user (root on a node) can connect,
 * without ever changing a directory the agent did not create. A missing directory is created mode
 * 0700 (the agent's own). An existing one is left exactly as it is, and must be a real directory
 * (not a symlink) owned by the agent's user or root, that other users cannot write, or only with
 * the sticky bit (as /tmp): otherwise another user could replace the socket, and the start is
 * refused (AgentSocketError naming the directory). The socket itself is always mode 0600
 * ({@link listenPrivately}). A socket left at `path` by an agent that died is removed; one another
 * agent still answers on, one owned by another user, or a file that is not a socket stops the
 * start (AgentSocketError).
 */
export async function prepareSocketPath(path: string): Promise<void> {
  const dir = dirname(path);
  const created = await mkdir(dir, { recursive: true, mode: 0o700 });
  const st = await lstat(dir);
  if (!st.isDirectory()) throw new AgentSocketError(`${dir} is not a directory`);
  const uid = process.getuid?.();
  if (created === undefined) checkExistingDirectory(dir, st, uid);
  let existing;
  try {
    existing = await lstat(path);
  } catch (e) {
    if (code(e) === 'ENOENT') return;
    throw e;
  }
  if (!existing.isSocket()) throw new AgentSocketError(`${path} exists and is not a socket`);
  if (uid !== undefined && existing.uid !== uid) {
    throw new AgentSocketError(
      `${path} is a socket of uid ${existing.uid}, not of this agent's (${uid}): not removed`,
    );
  }
  if (await answers(path)) throw new AgentSocketError(`another agent answers on ${path}`);
  await unlink(path); // a dead agent's
}

/** Refuses an existing socket directory another user could replace the socket in. */
function checkExistingDirectory(
  dir: string,
  st: { uid: number; mode: number },
  uid: number | undefined,
): void {
  if (uid !== undefined && st.uid !== uid && st.uid !== 0) {
    throw new AgentSocketError(
      `${dir} is owned by uid ${st.uid}, neither this agent's (${uid}) nor root's`,
    );
  }
  const writableByOthers = (st.mode & 0o022) !== 0;
  const sticky = (st.mode & 0o1000) !== 0;
  if (writableByOthers && !sticky) {
    throw new AgentSocketError(
      `${dir} (mode ${octal(st.mode)}) can be written by other users without the sticky bit, so ` +
        `they could replace the socket: use a directory only root can write, or one that does ` +
        `not exist yet (the agent creates it 0700); its mode is left as it is`,
    );
  }
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
