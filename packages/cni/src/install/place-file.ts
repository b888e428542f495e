import {
  chmodSync,
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';

/** What an install or uninstall did with one file. */
export interface InstalledFile {
  readonly path: string;
  /** `kept`: uninstall left it, since it is no longer what netledger wrote. */
  readonly action: 'written' | 'unchanged' | 'removed' | 'kept';
}

/**
 * Writes `path` through a temporary file in its directory (`<name>.tmp-<pid>`, an extension no
 * runtime loads), fsync and rename, so a reader sees the old content or the new, never a part.
 * The temporary file is removed if the write fails.
 */
function writeAtomically(path: string, content: Buffer, mode: number): void {
  const tmp = `${path}.tmp-${process.pid}`;
  try {
    const fd = openSync(tmp, 'w', mode);
    try {
      writeSync(fd, content);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    chmodSync(tmp, mode); // openSync's mode is filtered by the umask
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}

/**
 * Installs `content` at `path` (its directory created 0755 if missing) unless it is already
 * there, writing atomically; always leaves `mode`.
 */
export function placeFile(path: string, content: Buffer, mode: number): InstalledFile {
  mkdirSync(dirname(path), { recursive: true, mode: 0o755 });
  if (existsSync(path) && readFileSync(path).equals(content)) {
    chmodSync(path, mode);
    return { path, action: 'unchanged' };
  }
  writeAtomically(path, content, mode);
  return { path, action: 'written' };
}
