import { rmSync } from 'node:fs';
import type { UninstallCniOptions } from './install-cni-args.js';
import type { CniInstallResult } from './install-cni.js';
import { recordPath } from './install-record.js';
import type { InstalledFile } from './place-file.js';
import { readRecord } from './read-record.js';
import { recordedFileState } from './recorded-file-state.js';

/**
 * `netledger-ipam uninstall-cni`: removes what `install-cni` recorded in `confDir`, the conflist
 * first (so runtimes stop using the network before its plugin goes), each only while it is still
 * what was written; a file changed since is kept, with a note saying how it differs. Then the
 * record itself. Without a record there is nothing to remove (a note says so). Throws InstallError
 * for a record that is not netledger's, removing nothing.
 */
export function uninstallCni(o: UninstallCniOptions): CniInstallResult {
  const record = readRecord(o.confDir);
  const path = recordPath(o.confDir);
  if (record === undefined)
    return { files: [], notes: [`nothing to uninstall: no install record at ${path}`] };
  const files: InstalledFile[] = [];
  const notes: string[] = [];
  for (const file of [...record.files].reverse()) {
    const state = recordedFileState(file);
    if (state.kind === 'absent') continue;
    if (state.kind === 'changed') {
      notes.push(`kept ${file.path}: changed since netledger wrote it (${state.why})`);
      files.push({ path: file.path, action: 'kept' });
      continue;
    }
    rmSync(file.path);
    files.push({ path: file.path, action: 'removed' });
  }
  rmSync(path);
  files.push({ path, action: 'removed' });
  return { files, notes };
}
