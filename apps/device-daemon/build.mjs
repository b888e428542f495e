#!/usr/bin/env node
// Builds bin netledger-device: dist/netledger-device.mjs, ONE minified ESM file for the daemon and
// every verb (like scripts/bundle-app.mjs; `netlink`, a native addon, stays external and is loaded
// on first need), plus a V8 start-up snapshot of the client verbs alone (LXC hooks run
// `netledger-device start` once per container, so their start-up cost matters):
//  - dist/netledger-device.snapshot.cjs: a CommonJS bundle of src/snapshot-main.ts, which imports
//    `@netledger/device-daemon/cli` and `@netledger/device-daemon/warm-up` only (the client side).
//    A check below fails the build if daemon code, a native addon, prom-client or node:http (which
//    cannot be in a Node 20 snapshot) creeps in.
//  - dist/netledger-device.blob: `node --build-snapshot` of it, after a warm-up of every client
//    verb. scripts/link-bins.mjs points bin/netledger-device at it for the verbs package.json lists
//    in "snapshotVerbs", with the V8 flags in "snapshotFlags" (docs/device-daemon.md, "Start-up").
import { build } from 'esbuild';
import { nodeBundle, esmExecutableBanner } from '../../scripts/esbuild-node.mjs';
import { execFileSync } from 'node:child_process';
import { chmodSync, readFileSync, rmSync } from 'node:fs';

// Tests build under names of their own (`node build.mjs <name>`), so parallel test files do not race.
const binName = process.argv[2] ?? 'netledger-device';
const outfile = `dist/${binName}.mjs`;
const snapshotEntry = `dist/${binName}.snapshot.cjs`;
const snapshotBlob = `dist/${binName}.blob`;
const { snapshotFlags } = JSON.parse(readFileSync('package.json', 'utf8'));
// Nothing of the daemon side belongs in the client's snapshot.
const NOT_IN_CLIENT =
  /[\\/](netlink|prom-client|tdigest|@opentelemetry)[\\/]|[\\/]device-daemon[\\/]src[\\/](device-daemon|run-device-server|http-api|netlink-bridge-driver|metrics)\.ts$/;

const common = {
  ...nodeBundle,
  // A smaller heap deserializes faster, and less source text is compiled; the .mjs has a source map.
  minify: true,
  metafile: true,
  logLevel: 'warning',
};

await build({
  ...common,
  entryPoints: ['src/main.ts'],
  outfile,
  format: 'esm',
  external: ['netlink'],
  sourcemap: 'linked',
  banner: esmExecutableBanner,
});
chmodSync(outfile, 0o755);

// A snapshot entry is a script whose require() knows the Node built-ins only: everything else is
// bundled, and node:http may not be required at all.
const client = await build({
  ...common,
  entryPoints: ['src/snapshot-main.ts'],
  outfile: snapshotEntry,
  format: 'cjs',
});
const strays = Object.keys(client.metafile.inputs).filter((p) => NOT_IN_CLIENT.test(p));
if (strays.length > 0)
  throw new Error(`${snapshotEntry} bundles daemon code: ${strays.join(', ')}`);
const text = readFileSync(snapshotEntry, 'utf8');
if (/require\("(node:)?https?"\)/.test(text))
  throw new Error(`${snapshotEntry} requires node:http`);

rmSync(snapshotBlob, { force: true });
execFileSync(
  process.execPath,
  [...snapshotFlags, '--snapshot-blob', snapshotBlob, '--build-snapshot', snapshotEntry],
  { stdio: 'inherit' },
);
