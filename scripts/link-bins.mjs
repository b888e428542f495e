#!/usr/bin/env node
// After `turbo run build`, expose every app's (and tool's) bundled executables in the top-level bin/.
// An app declares them in its package.json "bin" map ({ "netledger-node": "dist/netledger-node.mjs" }).
// A bundle with a V8 start-up snapshot entry beside it (dist/<name>.snapshot.cjs and the blob built
// from it, dist/<name>.blob; see apps/device-daemon/build.mjs) gets a launcher that starts Node from
// the snapshot when it can, with the V8 flags the app's package.json lists in "snapshotFlags" (a
// blob only loads with the flags it was built with). An app whose snapshot serves some of its
// verbs only lists them in "snapshotVerbs": the launcher uses the snapshot when the first argument
// is one of them, and the bundle otherwise. An app whose executable installs itself lists the verb
// in "selfInstall" ("install": `<bundle> install --bin-dir bin` lays down its files: netledger-ipam's
// static client and its Node.js fallback).
import {
  readdirSync,
  readFileSync,
  mkdirSync,
  writeFileSync,
  chmodSync,
  existsSync,
} from 'node:fs';
import { join, dirname, relative } from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Whether this Node starts from `blob`: a snapshot's main, run with no arguments, exits 0. */
const loads = (blob, flags) =>
  spawnSync(process.execPath, [...flags, '--snapshot-blob', blob], { env: {}, stdio: 'ignore' })
    .status === 0;

/**
 * The blob of a bundle's start-up snapshot, made loadable in this Node, or undefined without one.
 * A blob only loads in the Node binary (and V8 flags) that built it, and turbo's cache does not
 * key on the Node version, so one that does not load is rebuilt from its entry. Its mtime is set
 * to the Node binary's, which the launcher compares to notice a Node replaced after the build.
 */
function usableSnapshot(bundle, flags) {
  const entry = bundle.replace(/\.mjs$/, '.snapshot.cjs');
  if (entry === bundle || !existsSync(entry)) return undefined;
  const blob = bundle.replace(/\.mjs$/, '.blob');
  if (!existsSync(blob) || !loads(blob, flags)) {
    execFileSync(process.execPath, [...flags, '--snapshot-blob', blob, '--build-snapshot', entry], {
      stdio: 'inherit',
    });
    if (!loads(blob, flags)) {
      console.warn(`${blob}: this Node cannot start from it; the launcher runs the bundle`);
      return undefined;
    }
  }
  // Readable by its owner only: its hash seed is fixed when it is built (docs/cni.md).
  chmodSync(blob, 0o600);
  // `touch -r` copies the nanoseconds, which the launcher's test compares (utimes() rounds them).
  execFileSync('touch', ['-r', process.execPath, blob]);
  return blob;
}

/**
 * A launcher that is both a shell script and an ES module. Executed, sh runs Node from the
 * snapshot when it loads: the blob exists, the Node binary is the one it was checked with (same
 * mtime; a snapshot refuses to load in another V8 version, exit status 14) and
 * NODE_OPTIONS is empty (V8 flags such as --max-old-space-size make a snapshot unloadable too).
 * With `verbs`, only when the first argument is one of them. Otherwise, or run as
 * `node <launcher>`, Node imports the bundle. Both paths exec, so the runtime that started the
 * launcher is signalling and waiting on Node itself.
 */
function snapshotLauncher(blob, flags, importLine, verbs) {
  const node = process.execPath;
  for (const word of [node, blob, ...flags, ...(verbs ?? [])]) {
    if (!/^[\w./+=-]+$/.test(word)) throw new Error(`${word}: cannot quote this word for sh`);
  }
  const snapshot =
    `[ -z "$NODE_OPTIONS" ] && [ -r "$b" ] && [ ! "$n" -nt "$b" ] && [ ! "$n" -ot "$b" ] && ` +
    `exec "$n" ${flags.map((f) => `${f} `).join('')}--snapshot-blob "$b" "$0" "$@"; `;
  const sh =
    `n=${node} b=${blob}; ` +
    (verbs === undefined ? snapshot : `case "$1" in ${verbs.join('|')}) ${snapshot}esac; `) +
    `exec node "$0" "$@"`;
  // `':'` is an expression statement to JavaScript and the no-op builtin to sh; the rest of the
  // line is a comment to JavaScript.
  return `#!/bin/sh\n':' //; ${sh}\n${importLine}`;
}
const binDir = join(root, 'bin');
mkdirSync(binDir, { recursive: true });
// Apps, and dev tools that ship an executable (tools/kube-test-apiserver, tools/kube-test-cluster).
const packageDirs = ['apps', 'tools'].flatMap((d) =>
  existsSync(join(root, d)) ? readdirSync(join(root, d)).map((p) => join(root, d, p)) : [],
);
let linked = 0;
for (const appDir of packageDirs) {
  const app = relative(root, appDir);
  const pkgPath = join(appDir, 'package.json');
  if (!existsSync(pkgPath)) continue;
  const pkg = JSON.parse(readFileSync(pkgPath, 'utf8'));
  const bins = pkg.bin ?? {};
  const snapshotFlags = pkg.snapshotFlags ?? [];
  const snapshotVerbs = pkg.snapshotVerbs;
  for (const [name, rel] of Object.entries(bins)) {
    const src = join(appDir, rel);
    if (!existsSync(src))
      throw new Error(`${app}: bin ${name} points at ${rel}, which the build did not produce`);
    if (pkg.selfInstall) {
      // The executable installs itself (netledger-ipam install): its files, here as anywhere else.
      execFileSync(process.execPath, [src, pkg.selfInstall, '--bin-dir', binDir], {
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      linked++;
      continue;
    }
    // A two-line launcher rather than a copy, so native dependencies still resolve from the app's
    // node_modules; the bundle itself (dist/<name>.mjs) is the file to install elsewhere.
    const target = join(binDir, name);
    const importLine = `import '${relative(binDir, src)}';\n`;
    const blob = usableSnapshot(src, snapshotFlags);
    writeFileSync(
      target,
      blob
        ? snapshotLauncher(blob, snapshotFlags, importLine, snapshotVerbs)
        : `#!/usr/bin/env node\n${importLine}`,
    );
    chmodSync(target, 0o755);
    linked++;
  }
}
console.log(`bin/: ${linked} executable(s)`);
