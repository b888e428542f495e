#!/usr/bin/env node
// Lays down what a device needs to run netledger-device, under a root directory (a device image's
// rootfs, or `/`), after `pnpm build`:
//   <prefix>/bin/netledger-device                      the launcher (sh)
//   <prefix>/lib/netledger-device/netledger-device.mjs the bundle: the daemon and every verb
//   <prefix>/lib/netledger-device/netledger-device.snapshot.cjs, .blob
//                                                      the client verbs' start-up snapshot
//   <prefix>/lib/netledger-device/node_modules/        the `netlink` addon (its JS, the prebuilt
//                                                      .node of one architecture, node-gyp-build)
//   <prefix>/lib/systemd/system/netledger-device.service
//   <sysconfdir>/init.d/netledger-device, <sysconfdir>/default/netledger-device (kept if present)
// The unit, the init script and the launcher name these paths, so they are rewritten to the
// --prefix and --sysconfdir given. Node.js itself and nft or iptables come from the device's
// distribution. docs/device-daemon.md, "Packaging".
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  realpathSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const USAGE = `usage: node apps/device-daemon/packaging/stage.mjs --dest ROOT [--prefix /usr]
  [--sysconfdir /etc] [--node /usr/bin/node] [--arch x64|arm64|arm|ia32] [--no-snapshot]
  [--build netledger-device]`;
const ARCHES = ['x64', 'arm64', 'arm', 'ia32'];

const here = dirname(fileURLToPath(import.meta.url));
const app = dirname(here);

function fail(message) {
  console.error(`stage: ${message}`);
  process.exit(2);
}

let values;
try {
  ({ values } = parseArgs({
    options: {
      dest: { type: 'string' },
      prefix: { type: 'string', default: '/usr' },
      sysconfdir: { type: 'string', default: '/etc' },
      node: { type: 'string', default: '/usr/bin/node' },
      arch: { type: 'string', default: process.arch },
      'no-snapshot': { type: 'boolean', default: false },
      build: { type: 'string', default: 'netledger-device' },
      help: { type: 'boolean', default: false },
    },
  }));
} catch (e) {
  fail(`${e.message}\n${USAGE}`);
}
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
if (values.dest === undefined) fail(`--dest ROOT is required (/ to install in place)\n${USAGE}`);
for (const key of ['prefix', 'sysconfdir', 'node']) {
  if (!isAbsolute(values[key])) fail(`--${key} ${values[key]} is not an absolute path`);
  // The launcher and the init script are sh: their paths are written unquoted-safe only.
  if (!/^[\w./+-]+$/.test(values[key])) fail(`--${key} ${values[key]}: only [A-Za-z0-9_./+-]`);
}
if (!ARCHES.includes(values.arch)) fail(`--arch ${values.arch} is not one of ${ARCHES.join(', ')}`);
const dist = join(app, 'dist');
const bundle = join(dist, `${values.build}.mjs`);
if (!existsSync(bundle)) fail(`${bundle} is missing: run pnpm build first`);

const libDir = join(values.prefix, 'lib', 'netledger-device');
const paths = {
  launcher: join(values.prefix, 'bin', 'netledger-device'),
  bundle: join(libDir, 'netledger-device.mjs'),
  snapshotEntry: join(libDir, 'netledger-device.snapshot.cjs'),
  blob: join(libDir, 'netledger-device.blob'),
  modules: join(libDir, 'node_modules'),
  unit: join(values.prefix, 'lib', 'systemd', 'system', 'netledger-device.service'),
  initScript: join(values.sysconfdir, 'init.d', 'netledger-device'),
  defaults: join(values.sysconfdir, 'default', 'netledger-device'),
};
/** Where a device path is written: under --dest. */
const at = (path) => join(values.dest, path);

function put(path, content, mode) {
  mkdirSync(dirname(at(path)), { recursive: true });
  writeFileSync(at(path), content);
  chmodSync(at(path), mode);
}

/** The packaging file with its default paths replaced by the staged ones (each must occur). */
function rewritten(file) {
  let text = readFileSync(join(here, file), 'utf8');
  for (const [from, to] of [
    ['/usr/bin/netledger-device', paths.launcher],
    ['/etc/default/netledger-device', paths.defaults],
  ]) {
    if (!text.includes(from)) throw new Error(`${file} no longer names ${from}`);
    text = text.replaceAll(from, to);
  }
  return text;
}

/** Copies the files of a package that `keep` selects (paths relative to it, / separated). */
function copyPackage(from, to, keep) {
  const walk = (rel) => {
    for (const entry of readdirSync(join(from, rel), { withFileTypes: true })) {
      const path = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules') walk(path);
      } else if (keep(path)) {
        mkdirSync(dirname(at(join(to, path))), { recursive: true });
        copyFileSync(join(from, path), at(join(to, path)));
      }
    }
  };
  walk('');
}

const pkg = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8'));
put(paths.bundle, readFileSync(bundle), 0o755);

// netlink: its JavaScript and one architecture's prebuilt addon (node-gyp-build picks it up from
// prebuilds/linux-<arch>/ at run time); nothing else of the workspace's node_modules is needed.
const requireFromApp = createRequire(join(app, 'package.json'));
const netlink = dirname(realpathSync(requireFromApp.resolve('netlink/package.json')));
const addon = `prebuilds/linux-${values.arch}/node.napi.node`;
if (!existsSync(join(netlink, addon))) fail(`netlink ships no ${addon}`);
copyPackage(
  netlink,
  join(paths.modules, 'netlink'),
  (p) => p === 'package.json' || p === 'LICENSE' || p === addon || /^dist\/.*\.js$/.test(p),
);
const gypBuild = dirname(
  realpathSync(createRequire(join(netlink, 'package.json')).resolve('node-gyp-build/package.json')),
);
copyPackage(gypBuild, join(paths.modules, 'node-gyp-build'), (p) =>
  ['package.json', 'LICENSE', 'index.js', 'node-gyp-build.js'].includes(p),
);

// The client verbs' snapshot: built by this Node, and loadable only by this very binary (V8
// checks), which the launcher recognises by its mtime, given to the blob; with another Node (or
// NODE_OPTIONS set) the launcher runs the bundle instead, as scripts/link-bins.mjs's does.
const snapshot = !values['no-snapshot'];
if (snapshot) {
  put(paths.snapshotEntry, readFileSync(join(dist, `${values.build}.snapshot.cjs`)), 0o644);
  execFileSync(process.execPath, [
    ...pkg.snapshotFlags,
    '--snapshot-blob',
    at(paths.blob),
    '--build-snapshot',
    at(paths.snapshotEntry),
  ]);
  // Readable by root only: its hash seed is fixed when it is built (docs/cni.md).
  chmodSync(at(paths.blob), 0o600);
  execFileSync('touch', ['-r', process.execPath, at(paths.blob)]);
  if (!existsSync(values.node) || realpathSync(values.node) !== realpathSync(process.execPath)) {
    console.warn(
      `stage: the snapshot is built by ${process.execPath} and loads only in that binary; where ` +
        `${values.node} is another, the client verbs run from the bundle (stage with the ` +
        `device's Node, or --no-snapshot)`,
    );
  }
}

for (const word of [...pkg.snapshotFlags, ...pkg.snapshotVerbs]) {
  if (!/^[\w-]+$/.test(word)) throw new Error(`${word}: cannot write it into the launcher`);
}
const fromSnapshot =
  `  ${pkg.snapshotVerbs.join('|')})\n` +
  `    [ -z "$NODE_OPTIONS" ] && [ -r "$b" ] && [ ! "$n" -nt "$b" ] && [ ! "$n" -ot "$b" ] &&\n` +
  `      exec "$n" ${pkg.snapshotFlags.join(' ')} --snapshot-blob "$b" "$0" "$@" ;;\n`;
put(
  paths.launcher,
  `#!/bin/sh
# netledger-device: the client verbs from the start-up snapshot when this Node can load it, the
# rest (serve, check, render-args) from the bundle. Written by packaging/stage.mjs.
n=${values.node} b=${paths.blob}
${snapshot ? `case "$1" in\n${fromSnapshot}esac\n` : ''}exec "$n" ${paths.bundle} "$@"
`,
  0o755,
);

put(paths.unit, rewritten('netledger-device.service'), 0o644);
put(paths.initScript, rewritten('netledger-device.init'), 0o755);
if (existsSync(at(paths.defaults))) console.log(`stage: kept ${at(paths.defaults)}`);
else put(paths.defaults, readFileSync(join(here, 'netledger-device.default')), 0o644);
console.log(`stage: netledger-device staged under ${values.dest} (prefix ${values.prefix})`);
