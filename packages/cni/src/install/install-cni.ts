import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseNetConf } from '../net-conf.js';
import { hostConflist, netledgerNetConf } from './host-conflist.js';
import type { InstallCniOptions } from './install-cni-args.js';
import { InstallError } from './install-error.js';
import { encodeRecord, recordPath, sha256 } from './install-record.js';
import type { RecordedFile } from './install-record.js';
import { placeFile } from './place-file.js';
import type { InstalledFile } from './place-file.js';
import { CLIENT_NAME } from './plugin-files.js';
import { readRecord } from './read-record.js';
import { recordedFileState } from './recorded-file-state.js';

/** What `install-cni` or `uninstall-cni` did: each file, and what it has to say about some. */
export interface CniInstallResult {
  readonly files: readonly InstalledFile[];
  /** One line each: a file replaced or left that netledger had not written as it is. */
  readonly notes: readonly string[];
}

/** Runs the installed client's `-v`: it must start on this machine (static, right architecture). */
function verifyClient(executable: string): void {
  const r = spawnSync(executable, ['-v'], { encoding: 'utf8', env: {} });
  if (r.status !== 0 || !r.stdout.includes('netledger-ipam')) {
    const why = r.error?.message ?? `status ${r.status}: ${r.stdout}${r.stderr}`;
    throw new InstallError(`the installed client ${executable} does not run: ${why}`);
  }
}

/**
 * Removes a file an earlier install wrote and this one does not: only if it is still what was
 * written (else it is kept, with a note).
 */
function removeStale(file: RecordedFile, notes: string[]): InstalledFile | undefined {
  const state = recordedFileState(file);
  if (state.kind === 'absent') return undefined;
  if (state.kind === 'changed') {
    notes.push(`kept ${file.path}: changed since netledger wrote it (${state.why})`);
    return { path: file.path, action: 'kept' };
  }
  rmSync(file.path);
  return { path: file.path, action: 'removed' };
}

/**
 * `netledger-ipam install-cni`: puts the static client `client` into the CNI bin directory (0755)
 * and the conflist (hostConflist, checked first by the plugin's own parser) into the CNI config
 * directory (0644), in that order, so a runtime never finds the config before its plugin; each
 * written atomically and only when it changed. The Node.js fallback is not installed. Files an
 * earlier install recorded and this one does not write are removed if still as written; then the
 * record of what was written (with SHA-256 digests) replaces the old one. Other files are never
 * touched. Throws InstallError (or the plugin's CniError for a bad config) before writing anything
 * when the config, the client or an existing record is unusable; if the client does not run, the
 * conflist and the record are not written. Idempotent: a second run writes nothing.
 */
export function installCni(o: InstallCniOptions, source: { client: string }): CniInstallResult {
  const conflist = hostConflist(o);
  // The same checks the plugin makes: a bad pool or store fails here, not at the first ADD.
  parseNetConf(JSON.stringify(netledgerNetConf(conflist)), {});
  if (!existsSync(source.client))
    throw new InstallError(`${source.client} is missing: nothing to install from`);
  const previous = readRecord(o.confDir);
  const wanted = [
    { path: join(o.binDir, CLIENT_NAME), content: readFileSync(source.client), mode: 0o755 },
    {
      path: join(o.confDir, o.confName),
      content: Buffer.from(`${JSON.stringify(conflist, null, 2)}\n`),
      mode: 0o644,
    },
  ];
  const notes: string[] = [];
  const files: InstalledFile[] = [];
  for (const w of wanted) {
    const before = previous?.files.find((f) => f.path === w.path);
    const state = before === undefined ? undefined : recordedFileState(before);
    const placed = placeFile(w.path, w.content, w.mode);
    if (placed.action === 'written' && state?.kind === 'changed')
      notes.push(`replaced ${w.path}: changed since netledger wrote it (${state.why})`);
    files.push(placed);
    if (w.mode === 0o755) verifyClient(w.path);
  }
  for (const stale of previous?.files ?? []) {
    if (wanted.some((w) => w.path === stale.path)) continue;
    const done = removeStale(stale, notes);
    if (done) files.push(done);
  }
  const record = encodeRecord({
    files: wanted.map((w) => ({ path: w.path, sha256: sha256(w.content) })),
  });
  files.push(placeFile(recordPath(o.confDir), record, 0o644));
  return { files, notes };
}
