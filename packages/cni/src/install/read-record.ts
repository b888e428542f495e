import { existsSync, readFileSync } from 'node:fs';
import { decodeRecord, recordPath } from './install-record.js';
import type { InstallRecord } from './install-record.js';

/**
 * The install record in `confDir`, or undefined when there is none. Throws InstallError for a
 * file there that is not netledger's record.
 */
export function readRecord(confDir: string): InstallRecord | undefined {
  const path = recordPath(confDir);
  if (!existsSync(path)) return undefined;
  return decodeRecord(readFileSync(path, 'utf8'), path);
}
