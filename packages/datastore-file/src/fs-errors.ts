import { IpamError } from '@netledger/ipam-core';

const READ_ONLY = new Set(['EROFS', 'EACCES', 'EPERM']);

/** The errno code of a Node fs error, if it is one. */
export function errnoOf(e: unknown): string | undefined {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * Maps a file system failure on the store to `IpamError('Unavailable')` whose message starts with
 * the store path; permission and read-only failures say `read-only`. IpamErrors pass through.
 */
export function toUnavailable(path: string, doing: string, e: unknown): IpamError {
  if (e instanceof IpamError) return e;
  const code = errnoOf(e);
  const detail = e instanceof Error ? e.message : String(e);
  const what = code && READ_ONLY.has(code) ? 'read-only or not writable location' : 'unavailable';
  return new IpamError('Unavailable', `${path}: ${what}: ${doing} failed (${detail})`, {
    identifier: path,
    cause: e,
  });
}
