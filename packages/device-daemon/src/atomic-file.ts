import { mkdir, open, readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Writes `text` to `<dir>/<name>` so that a crash or power loss leaves either the old or the new
 * content: a temp file is written and fsynced, renamed over the target, then the directory is
 * fsynced. The directory is created if missing (mode 700); the file is mode 600.
 */
export async function writeFileAtomic(args: {
  readonly dir: string;
  readonly name: string;
  readonly text: string;
}): Promise<void> {
  const path = join(args.dir, args.name);
  const tmp = `${path}.tmp`;
  // Leases and revisions are for root's eyes: directories this creates are 0700.
  await mkdir(args.dir, { recursive: true, mode: 0o700 });
  const file = await open(tmp, 'w', 0o600);
  try {
    // A temp file a crash left keeps its old mode through open(): set it.
    await file.chmod(0o600);
    await file.writeFile(args.text);
    await file.sync();
  } finally {
    await file.close();
  }
  await rename(tmp, path);
  const dir = await open(args.dir, 'r');
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}

/** The file's text, or `undefined` when it does not exist. Throws any other file system error. */
export async function readFileIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}
