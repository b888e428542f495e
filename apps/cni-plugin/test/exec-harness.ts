// Runs bin/netledger-ipam (built by `pnpm build`) as a CNI runtime would: CNI_* env and stdin.
import { execFile, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const BIN_DIR = join(ROOT, 'bin');
export const PLUGIN = join(BIN_DIR, 'netledger-ipam');
/** The Node.js fallback's entry in bin/netledger-ipam.d/ (`pnpm build` installs it there). */
const BUNDLE = join(BIN_DIR, 'netledger-ipam.d', 'netledger-ipam.mjs');

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
 * Runs the plugin synchronously: the executable itself (the static client), as a runtime does, or
 * with `nodeArgs` as `node <nodeArgs> bin/netledger-ipam.d/netledger-ipam.mjs` (its fallback).
 */
export function execPlugin(
  env: Record<string, string>,
  stdin: string,
  nodeArgs: string[] = [],
): ExecResult {
  const [file, args] =
    nodeArgs.length === 0 ? [PLUGIN, []] : [process.execPath, [...nodeArgs, BUNDLE]];
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
