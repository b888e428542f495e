import { spawnSync } from 'node:child_process';
import {
  existsSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { join, relative } from 'node:path';
import { parseNetConf } from '../net-conf.js';
import { exampleConflist } from './example-conflist.js';
import type { InstallOptions } from './install-args.js';
import { InstallError } from './install-error.js';
import { placeFile } from './place-file.js';
import type { InstalledFile } from './place-file.js';
import { CLIENT_NAME, FALLBACK_DIR, NODE_LINK } from './plugin-files.js';

/** Where the files come from. */
export interface InstallSource {
  /** The fallback's directory: the bundle's entry and its chunks. */
  readonly bundleDir: string;
  /** The static client for this machine. */
  readonly client: string;
  /** The Node.js binary the installed fallback runs on (this one). */
  readonly node: string;
}

/** Points the symlink `path` at `target`, replacing what is there in one rename. */
function link(path: string, target: string): InstalledFile {
  let current: string | undefined;
  try {
    current = readlinkSync(path, 'utf8');
  } catch {
    current = undefined; // none, or not a link: replaced
  }
  if (current === target) return { path, action: 'unchanged' };
  const tmp = `${path}.tmp-${process.pid}`;
  rmSync(tmp, { force: true });
  symlinkSync(target, tmp);
  renameSync(tmp, path);
  return { path, action: 'written' };
}

/** The files under `dir`, relative to it (the node link left out). */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .filter((f) => f !== NODE_LINK)
    .sort();
}

/** Runs the installed plugin's VERSION, as a runtime would (no agent: the fallback answers). */
function verify(executable: string): void {
  const r = spawnSync(executable, [], {
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', CNI_COMMAND: 'VERSION' },
    input: '{"cniVersion":"1.0.0"}',
    encoding: 'utf8',
  });
  if (r.status !== 0 || !r.stdout.includes('"supportedVersions"')) {
    throw new InstallError(
      `the installed plugin does not answer VERSION (status ${r.status}): ${r.stdout}${r.stderr}`,
    );
  }
}

/**
 * Lays down netledger-ipam in `binDir` (netledger-ipam install): the fallback's files in
 * `binDir/netledger-ipam.d/` (0644; chunks of an earlier version removed) and its link to
 * `source.node`, then the static client `binDir/netledger-ipam` (0755) last, each written
 * atomically and only when it changed, so a plugin started during the install runs the old files
 * or the new ones. Then it runs the installed plugin's VERSION. With `confDir`, also writes the
 * example conflist (0644) after checking it parses as the plugin parses it. Idempotent.
 */
export function installPlugin(options: InstallOptions, source: InstallSource): InstalledFile[] {
  for (const f of [source.bundleDir, source.client]) {
    if (!existsSync(f)) throw new InstallError(`${f} is missing: nothing to install from`);
  }
  const libDir = join(options.binDir, FALLBACK_DIR);
  const wanted = filesUnder(source.bundleDir);
  const files = wanted.map((f) =>
    placeFile(join(libDir, f), readFileSync(join(source.bundleDir, f)), 0o644),
  );
  for (const stale of filesUnder(libDir).filter((f) => !wanted.includes(f))) {
    rmSync(join(libDir, stale));
    files.push({ path: join(libDir, stale), action: 'removed' });
  }
  files.push(link(join(libDir, NODE_LINK), source.node));
  const executable = join(options.binDir, CLIENT_NAME);
  files.push(placeFile(executable, readFileSync(source.client), 0o755));
  verify(executable);
  if (options.confDir !== undefined) {
    const conflist = exampleConflist(options);
    const plugin = (conflist['plugins'] as Record<string, unknown>[])[0]!;
    // The same checks the plugin makes: a bad --pool fails here, not at the first ADD.
    parseNetConf(JSON.stringify({ cniVersion: '1.0.0', name: options.network, ...plugin }), {});
    files.push(
      placeFile(
        join(options.confDir, options.confFile),
        Buffer.from(`${JSON.stringify(conflist, null, 2)}\n`),
        0o644,
      ),
    );
  }
  return files;
}
