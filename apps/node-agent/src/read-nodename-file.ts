import { readFile } from 'node:fs/promises';

/**
 * The text of a node name file, read as calico-ipam's `nodenameFromFile` reads it: no file is no
 * node name (`undefined`); a file that exists but cannot be read is told to `logError` (Calico's
 * `Failed to read <path>`), then taken as no node name too. Never rejects.
 */
export async function readNodenameFile(
  path: string,
  logError: (message: string) => void,
): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT')
      logError(`Failed to read ${path}: ${(e as Error).message}`);
    return undefined;
  }
}
