// The daemon's API socket is for root (or the user running it) only: whoever can connect can start
// and stop containers' networks. The socket is bound inside a fresh 0700 directory next to its
// final path, made 0600 there, then renamed into place, so at no moment can another user connect.
import { chmod, mkdtemp, rename, rm } from 'node:fs/promises';
import type { Server } from 'node:net';
import { basename, dirname, join } from 'node:path';

/** The mode of the API socket: read and write (connect) for its owner only. */
export const SOCKET_MODE = 0o600;

/**
 * Makes `server` listen on the unix socket `socketPath` with mode 0600, replacing a stale socket
 * file there. Rejects (and leaves nothing behind) if the socket cannot be bound or moved in place.
 */
export async function listenPrivateSocket(server: Server, socketPath: string): Promise<void> {
  const dir = dirname(socketPath);
  const privateDir = await mkdtemp(join(dir, `.${basename(socketPath)}-`));
  const bound = join(privateDir, 'sock');
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(bound, () => {
        server.off('error', reject);
        resolve();
      });
    });
    await chmod(bound, SOCKET_MODE);
    await rm(socketPath, { force: true });
    await rename(bound, socketPath);
  } catch (e) {
    if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    throw e;
  } finally {
    await rm(privateDir, { recursive: true, force: true });
  }
}
