// Runs bin/netledger-ipam (built by `pnpm build`) as a CNI runtime would: CNI_* env and stdin.
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const BIN_DIR = join(ROOT, 'bin');
export const PLUGIN = join(BIN_DIR, 'netledger-ipam');
/**
 * The shell launcher (and ES module) in bin/netledger-ipam.d/, which bin/netledger-ipam runs for
 * Node when it is the Perl agent client, and `node <launcher>` imports the bundle through.
 */
export const LAUNCHER = join(BIN_DIR, 'netledger-ipam.d', 'netledger-ipam');
/**
 * The start-up snapshot bin/netledger-ipam starts from: `pnpm build` installs the plugin into bin/
 * (scripts/link-bins.mjs runs `netledger-ipam install --bin-dir bin`).
 */
export const SNAPSHOT_BLOB = join(BIN_DIR, 'netledger-ipam.d', 'netledger-ipam.blob');
/** The V8 flags the blob was built with, which Node must be given to load it (package.json). */
export const SNAPSHOT_FLAGS = (
  JSON.parse(readFileSync(join(ROOT, 'apps', 'cni-plugin', 'package.json'), 'utf8')) as {
    snapshotFlags: string[];
  }
).snapshotFlags;

/** Fails (never skips) when the executable has not been built. */
export function requirePlugin(): void {
  if (!existsSync(PLUGIN)) {
    throw new Error(`${PLUGIN} is missing: run pnpm build (at ${ROOT}) before these tests`);
  }
}

export interface ExecResult {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly json: Record<string, unknown> | undefined;
}

const parse = (stdout: string): Record<string, unknown> | undefined => {
  try {
    return JSON.parse(stdout) as Record<string, unknown>;
  } catch {
    return undefined;
  }
};

export function cniEnv(
  command: string,
  containerId = 'c1',
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    CNI_COMMAND: command,
    CNI_CONTAINERID: containerId,
    CNI_NETNS: `/var/run/netns/${containerId}`,
    CNI_IFNAME: 'eth0',
    CNI_PATH: BIN_DIR,
    ...extra,
  };
}

/**
 * Runs the plugin synchronously: the executable itself, as a runtime does (which starts Node from
 * the snapshot), or with `nodeArgs` as `node <nodeArgs> bin/netledger-ipam.d/netledger-ipam` (the
 * plain bundle).
 */
export function execPlugin(
  env: Record<string, string>,
  stdin: string,
  nodeArgs: string[] = [],
): ExecResult {
  const [file, args] =
    nodeArgs.length === 0 ? [PLUGIN, []] : [process.execPath, [...nodeArgs, LAUNCHER]];
  const r = spawnSync(file, args, { env, input: stdin, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, json: parse(r.stdout) };
}

/** Runs the executable without blocking (for concurrent invocations). */
export function execPluginAsync(env: Record<string, string>, stdin: string): Promise<ExecResult> {
  return new Promise((resolve) => {
    const child = execFile(PLUGIN, [], { env, encoding: 'utf8' }, (error, stdout, stderr) => {
      resolve({
        status: error ? (typeof error.code === 'number' ? error.code : 1) : 0,
        stdout,
        stderr,
        json: parse(stdout),
      });
    });
    child.stdin?.end(stdin);
  });
}
