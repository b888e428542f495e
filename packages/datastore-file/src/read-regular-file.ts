import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import type { OnFileWarning } from '@netledger/file-lock';
import { IpamError } from '@netledger/ipam-core';
import { errnoOf, toUnavailable } from './fs-errors.js';

// O_NOFOLLOW: a symbolic link is refused by the open itself, so it cannot be swapped in between a
// check and the read. O_NONBLOCK: opening a FIFO does not wait for a writer (it is refused next).
const FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * The text of the regular file at `path`, read without following a symbolic link (its parent
 * directories may be links); undefined when there is no such file. Throws `InvalidArgument`
 * naming `path` and `refusing` for a symbolic link, a directory or anything but a regular file,
 * and `Unavailable` when it cannot be read. Reads only; a handle that fails to close is `warn`ed.
 */
export async function readRegularFile(
  path: string,
  refusing: string,
  warn: OnFileWarning,
): Promise<string | undefined> {
  const refuse = (what: string): IpamError =>
    new IpamError('InvalidArgument', `${path}: ${what}; refusing to ${refusing}`, {
      identifier: path,
    });
  let handle: FileHandle;
  try {
    handle = await open(path, FLAGS);
  } catch (e) {
    const code = errnoOf(e);
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') throw refuse('is a symbolic link, not a datastore file');
    throw toUnavailable(path, 'reading', e);
  }
  try {
    const s = await handle.stat();
    if (s.isDirectory()) throw refuse('is a directory, not a datastore file');
    if (!s.isFile()) throw refuse('is not a regular file');
    return await handle.readFile('utf8');
  } catch (e) {
    throw toUnavailable(path, 'reading', e);
  } finally {
    // The read's outcome stands; a descriptor that fails to close is a warning.
    await handle
      .close()
      .catch((cause: unknown) => warn({ message: 'could not close the file', path, cause }));
  }
}
