import { createHash } from 'node:crypto';
import { isAbsolute, join } from 'node:path';
import { InstallError } from './install-error.js';

/**
 * The record's name in the CNI config directory: a dot file with an extension no runtime loads
 * (libcni reads `.conf`, `.conflist` and `.json` files there).
 */
const RECORD_NAME = '.netledger-install.record';

/** One file `install-cni` wrote: its absolute path and the SHA-256 of what it wrote. */
export interface RecordedFile {
  readonly path: string;
  readonly sha256: string;
}

/** What `install-cni` wrote, in the order it wrote it. */
export interface InstallRecord {
  readonly files: readonly RecordedFile[];
}

const WRITER = 'netledger-ipam install-cni';

/** Where the record of an install into `confDir` is kept. */
export function recordPath(confDir: string): string {
  return join(confDir, RECORD_NAME);
}

/** The hex SHA-256 of `content`. */
export function sha256(content: Buffer): string {
  return createHash('sha256').update(content).digest('hex');
}

/** The record's text: the same files give the same bytes (no time stamp), so a rerun rewrites nothing. */
export function encodeRecord(record: InstallRecord): Buffer {
  const files = record.files.map((f) => ({ path: f.path, sha256: f.sha256 }));
  return Buffer.from(`${JSON.stringify({ writer: WRITER, files }, null, 2)}\n`);
}

/**
 * Reads a record's text. Throws {@link InstallError} naming `path` for one that is not netledger's
 * record (not JSON, another writer, a file without an absolute path or a SHA-256), so nothing is
 * removed on the word of a file netledger did not write.
 */
export function decodeRecord(text: string, path: string): InstallRecord {
  const refuse = (why: string): never => {
    throw new InstallError(`${path} is not a netledger install record (${why}): left alone`);
  };
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return refuse('not JSON');
  }
  if (
    typeof doc !== 'object' ||
    doc === null ||
    (doc as Record<string, unknown>)['writer'] !== WRITER
  )
    return refuse(`no "writer": "${WRITER}"`);
  const files = (doc as Record<string, unknown>)['files'];
  if (!Array.isArray(files)) return refuse('no files list');
  return {
    files: files.map((f: unknown) => {
      const e = (typeof f === 'object' && f !== null ? f : {}) as Record<string, unknown>;
      const path = e['path'];
      const digest = e['sha256'];
      if (typeof path !== 'string' || !isAbsolute(path))
        return refuse('a file without an absolute path');
      if (typeof digest !== 'string' || !/^[0-9a-f]{64}$/.test(digest))
        return refuse(`${path} without a SHA-256`);
      return { path, sha256: digest };
    }),
  };
}
