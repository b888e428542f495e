import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The static client's Go sources in this workspace (apps/cni-plugin/client). */
const SOURCE = join(import.meta.dirname, '..', '..', '..', 'apps', 'cni-plugin', 'client');

/**
 * The static client (`netledger-ipam`, whose `lock-helper` verb holds flock(2) locks for the
 * Node.js side), built for this machine from the workspace's Go sources with the Go toolchain, once
 * per version of the sources (cached under ~/.cache/netledger/static-client/). Throws, saying what
 * is missing, when Go cannot build it: a test that needs it never skips.
 */
export function staticClientBinary(): string {
  const files = readdirSync(SOURCE)
    .filter((f) => f.endsWith('.go') || f === 'go.mod')
    .sort();
  const hash = createHash('sha256');
  for (const f of files) hash.update(f).update(readFileSync(join(SOURCE, f)));
  const dir = join(
    homedir(),
    '.cache',
    'netledger',
    'static-client',
    hash.digest('hex').slice(0, 16),
  );
  const binary = join(dir, 'netledger-ipam');
  if (existsSync(binary)) return binary;
  mkdirSync(dir, { recursive: true });
  const tmp = `${binary}.${process.pid}`;
  const r = spawnSync('go', ['build', '-trimpath', '-o', tmp, '.'], {
    cwd: SOURCE,
    env: { ...process.env, CGO_ENABLED: '0', GOTOOLCHAIN: 'local', GOFLAGS: '-mod=mod' },
    encoding: 'utf8',
  });
  if (r.error || r.status !== 0) {
    throw new Error(
      `building the static client (go build in ${SOURCE}) failed: ${r.error?.message ?? r.stderr}; the Go toolchain must be on PATH`,
    );
  }
  renameSync(tmp, binary);
  return binary;
}
