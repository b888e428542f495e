import { readFile } from 'node:fs/promises';

/**
 * The text of a node name file, read as calico-ipam's `nodenameFromFile` reads it: no file is no
 * node name (`undefined`); a file that exists but cannot be read is said on `stderr`, then taken
 * as no node name too. Never rejects.
 */
export async function readNodenameFile(
  path: string,
  stderr: (text: string) => void,
): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT')
      stderr(`netledger-node: failed to read ${path}: ${(e as Error).message}\n`);
    return undefined;
  }
}
