import { dirname, resolve } from 'node:path';

/** The directory an installed plugin keeps its files in, beside its launcher. */
export const PLUGIN_DIR_NAME = 'netledger-ipam.d';
/**
 * The installed executable's name, the CNI plugin type runtimes execute; also the shell launcher's
 * inside the directory (`netledger-ipam.d/netledger-ipam`), which the Perl agent client runs.
 */
export const LAUNCHER_NAME = 'netledger-ipam';
/** The plain bundle (an ES module), run when the snapshot cannot serve. */
export const BUNDLE_NAME = 'netledger-ipam.mjs';
/** The snapshot's entry (CommonJS), from which a blob is built for the Node that will run it. */
export const SNAPSHOT_ENTRY_NAME = 'netledger-ipam.snapshot.cjs';
/**
 * The node agent's Perl client's source beside the bundle (0644, so an installed plugin can install
 * itself elsewhere), from which the install makes the executable when it finds a Perl
 * (agent-client-script.ts).
 */
export const AGENT_CLIENT_NAME = 'netledger-ipam-agent.pl';
/** The start-up snapshot, readable by its owner only. */
export const BLOB_NAME = 'netledger-ipam.blob';

/**
 * The directory holding the running plugin's files (`dist/` of the build, or an installed
 * `netledger-ipam.d/`): beside the blob Node was started from (`--snapshot-blob` in
 * `execArgv`), else the directory of the running ES module, `selfDir` (the plain bundle).
 * Undefined when neither is known.
 */
export function pluginSourceDir(args: {
  readonly execArgv: readonly string[];
  readonly selfDir?: string;
}): string | undefined {
  for (let i = 0; i < args.execArgv.length; i++) {
    const a = args.execArgv[i]!;
    if (a === '--snapshot-blob' && args.execArgv[i + 1] !== undefined) {
      return dirname(resolve(args.execArgv[i + 1]!));
    }
    if (a.startsWith('--snapshot-blob='))
      return dirname(resolve(a.slice('--snapshot-blob='.length)));
  }
  return args.selfDir;
}
