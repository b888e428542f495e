// Builds the app for a test file under a name of its own: the bundle, the client snapshot entry
// and its blob (apps/device-daemon/build.mjs), and says how to run each.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The app's directory, found upwards from this file (or from the bundle run-ts.mjs made of it). */
export const APP_DIR = ((): string => {
  for (
    let dir = dirname(fileURLToPath(import.meta.url));
    dir !== dirname(dir);
    dir = dirname(dir)
  ) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && readFileSync(pkg, 'utf8').includes('"@netledger/device-daemon-app"'))
      return dir;
  }
  throw new Error('cannot find apps/device-daemon');
})();

/** A test build: the files, and the argv prefixes that run the bundle and the client snapshot. */
export interface AppBuild {
  readonly bundle: string;
  readonly blob: string;
  /** `node <bundle>`: the daemon and every verb. */
  readonly bundleArgv: readonly string[];
  /** `node <flags> --snapshot-blob <blob> <launcher>`: the client verbs, as the launcher runs them. */
  readonly snapshotArgv: readonly string[];
  /** The V8 flags the blob is built and run with (package.json "snapshotFlags"). */
  readonly snapshotFlags: readonly string[];
}

/** Runs build.mjs under `name` (dist/<name>.*). */
export function buildApp(name: string): AppBuild {
  execFileSync(process.execPath, ['build.mjs', name], { cwd: APP_DIR, stdio: 'pipe' });
  const bundle = join(APP_DIR, 'dist', `${name}.mjs`);
  const blob = join(APP_DIR, 'dist', `${name}.blob`);
  const { snapshotFlags } = JSON.parse(readFileSync(join(APP_DIR, 'package.json'), 'utf8')) as {
    snapshotFlags: string[];
  };
  return {
    bundle,
    blob,
    bundleArgv: [bundle],
    snapshotArgv: [...snapshotFlags, '--snapshot-blob', blob, bundle],
    snapshotFlags,
  };
}
