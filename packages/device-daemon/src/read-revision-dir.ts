import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RevisionFiles } from './revision.js';

async function readOptional(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw e;
  }
}

/**
 * Reads a state directory laid out like a device revision: `device.json` (optional) and one
 * directory per container holding `run.json` and optionally `lxc.container.conf`. Directories
 * without a run.json are not containers and are skipped. Throws the file system error.
 */
export async function readRevisionDir(dir: string): Promise<RevisionFiles> {
  const deviceJson = await readOptional(join(dir, 'device.json'));
  const entries = await readdir(dir, { withFileTypes: true });
  const containers: { name: string; runJson: string | undefined; lxcConfig: string | undefined }[] =
    [];
  for (const entry of entries) {
    if (!entry.isDirectory()) continue;
    const runJson = await readOptional(join(dir, entry.name, 'run.json'));
    if (runJson === undefined) continue;
    const lxcConfig = await readOptional(join(dir, entry.name, 'lxc.container.conf'));
    containers.push({ name: entry.name, runJson, lxcConfig });
  }
  return { deviceJson, containers };
}
