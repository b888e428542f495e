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
import { delimiter, join } from 'node:path';
import type * as ChildProcessModule from 'node:child_process';
import { DEFAULT_AGENT_SOCKET, parseNetConf } from '../net-conf.js';
import { exampleConflist } from './example-conflist.js';
import type { InstallOptions } from './install-args.js';
import { agentClientScript } from './agent-client-script.js';
import { launcherScript } from './launcher-script.js';
import {
  AGENT_CLIENT_NAME,
  BLOB_NAME,
  BUNDLE_NAME,
  LAUNCHER_NAME,
  PLUGIN_DIR_NAME,
  SNAPSHOT_ENTRY_NAME,
} from './plugin-files.js';

/** What the install did with one file. */
interface InstalledFile {
  readonly path: string;
  readonly action: 'written' | 'unchanged' | 'built';
}

/** What the install laid down, and which client the executable reaches the node agent with. */
export interface InstalledPlugin {
  readonly files: InstalledFile[];
  /** The Perl of the executable (the agent client), or `node` (the plugin asks the agent itself). */
  readonly agentClient: string;
}

/** An install that could not complete; nothing it replaced is left half-written. */
export class InstallError extends Error {
  override readonly name = 'InstallError';
}

/** Where the files come from and which Node the installed plugin runs on. */
export interface InstallSource {
  /** The directory holding the bundle, the snapshot's entry and maybe a blob. */
  readonly dir: string;
  /** The Node binary the launcher starts (and the blob is built for). */
  readonly node: string;
  /** The V8 flags the blob is built and run with: it only loads with the flags it was built with. */
  readonly snapshotFlags: readonly string[];
}

// Loaded when an install runs: the start-up snapshot is built with this module evaluated, and
// Node's snapshot builder does not vouch for node:child_process.
const childProcess = (): typeof ChildProcessModule =>
  process.getBuiltinModule('node:child_process');

const sameContent = (path: string, content: Buffer): boolean =>
  existsSync(path) && readFileSync(path).equals(content);

/** Writes `content` to `path` through a temporary file in the same directory, fsync and rename. */
function writeAtomically(path: string, content: Buffer, mode: number): void {
  const tmp = `${path}.tmp-${process.pid}`;
  const fd = openSync(tmp, 'w', mode);
  try {
    writeSync(fd, content);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  chmodSync(tmp, mode); // openSync's mode is filtered by the umask
  renameSync(tmp, path);
}

/** Installs `content` at `path` unless it is already there; always leaves `mode`. */
function place(path: string, content: Buffer, mode: number): InstalledFile {
  if (sameContent(path, content)) {
    chmodSync(path, mode);
    return { path, action: 'unchanged' };
  }
  writeAtomically(path, content, mode);
  return { path, action: 'written' };
}

/** Whether the source's Node starts from `blob` (a snapshot's main without CNI_COMMAND exits 0). */
function loads(source: InstallSource, blob: string): boolean {
  return (
    childProcess().spawnSync(source.node, [...source.snapshotFlags, '--snapshot-blob', blob], {
      env: {},
      stdio: 'ignore',
    }).status === 0
  );
}

/**
 * Puts a blob that loads in `node` at `target`: the source's when it loads (copied unless the
 * same bytes are there), else the one already there when its entry did not change, else one
 * built from the installed entry. Mode 0600 (its hash seed is fixed when it is built) and the Node
 * binary's mtime, which the launcher compares, nanoseconds included (`touch -r`).
 */
function placeBlob(args: {
  source: InstallSource;
  target: string;
  entry: string;
  entryChanged: boolean;
}): InstalledFile {
  const { source, target } = args;
  const sourceBlob = join(source.dir, BLOB_NAME);
  let action: InstalledFile['action'];
  let readable: boolean;
  try {
    readable = existsSync(sourceBlob) && readFileSync(sourceBlob).length > 0;
  } catch {
    readable = false; // another user's blob (mode 0600): build one
  }
  if (readable && loads(source, sourceBlob)) {
    action = place(target, readFileSync(sourceBlob), 0o600).action;
  } else if (!args.entryChanged && existsSync(target) && loads(source, target)) {
    action = 'unchanged';
  } else {
    const tmp = `${target}.tmp-${process.pid}`;
    const built = childProcess().spawnSync(
      source.node,
      [...source.snapshotFlags, '--snapshot-blob', tmp, '--build-snapshot', args.entry],
      { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' },
    );
    if (built.status !== 0 || !loads(source, tmp)) {
      rmSync(tmp, { force: true });
      throw new InstallError(
        `building the start-up snapshot failed (status ${built.status}): ${built.stderr.trim()}`,
      );
    }
    renameSync(tmp, target);
    action = 'built';
  }
  chmodSync(target, 0o600);
  childProcess().execFileSync('touch', ['-r', source.node, target]);
  return { path: target, action };
}

/**
 * The executable as the agent client: the script for the first `perl` on `path` (then /usr/bin
 * and /bin) that compiles it (`perl -c`), or undefined when there is none.
 */
function agentClientFor(args: {
  client: string;
  probeSocket: string;
  path: string;
}): { perl: string; script: string } | undefined {
  const dirs = [...args.path.split(delimiter), '/usr/bin', '/bin'].filter((d) => d.startsWith('/'));
  for (const dir of new Set(dirs)) {
    const perl = join(dir, 'perl');
    if (!existsSync(perl) || !/^[\w./+=-]+$/.test(perl)) continue;
    const script = agentClientScript({ perl, probeSocket: args.probeSocket, client: args.client });
    const checked = childProcess().spawnSync(perl, ['-c'], { input: script, stdio: 'pipe' });
    if (checked.status === 0) return { perl, script };
  }
  return undefined;
}

/** Runs the installed plugin's VERSION, as a runtime would (with and without NODE_OPTIONS). */
function verify(executable: string): void {
  for (const nodeOptions of ['', '--max-old-space-size=256']) {
    const r = childProcess().spawnSync(executable, [], {
      env: {
        PATH: process.env['PATH'] ?? '/usr/bin:/bin',
        CNI_COMMAND: 'VERSION',
        ...(nodeOptions && { NODE_OPTIONS: nodeOptions }),
      },
      encoding: 'utf8',
    });
    if (r.status !== 0 || !r.stdout.includes('"supportedVersions"')) {
      throw new InstallError(
        `the installed plugin does not answer VERSION${nodeOptions ? ' with NODE_OPTIONS' : ''} (status ${r.status}): ${r.stdout}${r.stderr}`,
      );
    }
  }
}

/**
 * Lays down a self-contained netledger-ipam in `binDir` (netledger-ipam install): the bundle and
 * the snapshot's entry (0644), a blob that loads in `source.node` (0600), the agent client's source
 * (0644) and the shell launcher (0755) in `binDir/netledger-ipam.d/`, then the executable `binDir/netledger-ipam` (0755): the
 * node agent's Perl client in front of that launcher when a Perl that compiles it is found
 * (`agentClient` perl), else a shell launcher of its own (the plugin asks the agent from Node).
 * Each is written atomically and only when it changed, the executable last, so a plugin started
 * during the install runs the old files or the new ones (an older install's executable, the shell
 * launcher with the client's source in the directory, keeps working until it is replaced). Then it runs the installed plugin's VERSION with and without
 * NODE_OPTIONS. With `confDir`, also writes the example conflist (0644) after checking it parses.
 * Idempotent: a second run with the same files reports them unchanged.
 */
export function installPlugin(options: InstallOptions, source: InstallSource): InstalledPlugin {
  const bundle = join(source.dir, BUNDLE_NAME);
  const entry = join(source.dir, SNAPSHOT_ENTRY_NAME);
  const client = join(source.dir, AGENT_CLIENT_NAME);
  for (const f of [bundle, entry, client]) {
    if (!existsSync(f)) throw new InstallError(`${f} is missing: nothing to install from`);
  }
  const libDir = join(options.binDir, PLUGIN_DIR_NAME);
  mkdirSync(libDir, { recursive: true, mode: 0o755 });
  const files: InstalledFile[] = [];
  files.push(place(join(libDir, BUNDLE_NAME), readFileSync(bundle), 0o644));
  const installedEntry = join(libDir, SNAPSHOT_ENTRY_NAME);
  const entryFile = place(installedEntry, readFileSync(entry), 0o644);
  files.push(entryFile);
  files.push(
    placeBlob({
      source,
      target: join(libDir, BLOB_NAME),
      entry: installedEntry,
      entryChanged: entryFile.action !== 'unchanged',
    }),
  );
  const clientSource = readFileSync(client);
  files.push(place(join(libDir, AGENT_CLIENT_NAME), clientSource, 0o644));
  const node = { node: source.node, flags: source.snapshotFlags };
  // Laid down whichever the client: a switch between them never leaves the executable without it.
  const inner = launcherScript({ ...node, inPluginDir: true });
  files.push(place(join(libDir, LAUNCHER_NAME), Buffer.from(inner), 0o755));
  const perlClient =
    options.agentClient === 'perl'
      ? agentClientFor({
          client: clientSource.toString('utf8'),
          probeSocket: options.agentSocket ?? DEFAULT_AGENT_SOCKET,
          path: process.env['PATH'] ?? '/usr/bin:/bin',
        })
      : undefined;
  const executable = join(options.binDir, LAUNCHER_NAME);
  files.push(place(executable, Buffer.from(perlClient?.script ?? launcherScript(node)), 0o755));
  verify(executable);
  if (options.confDir !== undefined) {
    const conflist = exampleConflist(options);
    const plugin = (conflist['plugins'] as Record<string, unknown>[])[0]!;
    // The same checks the plugin makes: a bad --pool fails here, not at the first ADD.
    parseNetConf(JSON.stringify({ cniVersion: '1.0.0', name: options.network, ...plugin }), {});
    mkdirSync(options.confDir, { recursive: true, mode: 0o755 });
    files.push(
      place(
        join(options.confDir, options.confFile),
        Buffer.from(`${JSON.stringify(conflist, null, 2)}\n`),
        0o644,
      ),
    );
  }
  return { files, agentClient: perlClient?.perl ?? 'node' };
}
