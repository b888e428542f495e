// The bin/ launcher scripts/link-bins.mjs writes for this app, made for one build: link-bins runs
// on a workspace of this app alone (in `dir`), so no other app has to be built.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AppBuild } from './build-app.js';
import { APP_DIR } from './build-app.js';

/** Writes `<dir>/bin/netledger-device` from `build` with the real link-bins; returns its path. */
export function linkLauncher(build: AppBuild, dir: string): string {
  const app = join(dir, 'apps', 'device-daemon');
  mkdirSync(join(app, 'dist'), { recursive: true });
  mkdirSync(join(dir, 'scripts'), { recursive: true });
  copyFileSync(join(APP_DIR, '../../scripts/link-bins.mjs'), join(dir, 'scripts/link-bins.mjs'));
  const pkg = JSON.parse(readFileSync(join(APP_DIR, 'package.json'), 'utf8')) as Record<
    string,
    unknown
  >;
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify({ ...pkg, bin: { 'netledger-device': 'dist/netledger-device.mjs' } }),
  );
  for (const ext of ['mjs', 'snapshot.cjs', 'blob'])
    symlinkSync(
      build.bundle.replace(/\.mjs$/, `.${ext}`),
      join(app, 'dist', `netledger-device.${ext}`),
    );
  symlinkSync(join(APP_DIR, 'node_modules'), join(app, 'node_modules'));
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
  const linked = spawnSync(process.execPath, [join(dir, 'scripts/link-bins.mjs')], {
    encoding: 'utf8',
  });
  if (linked.status !== 0) throw new Error(`link-bins failed: ${linked.stderr}`);
  return join(dir, 'bin', 'netledger-device');
}
