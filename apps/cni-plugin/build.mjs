#!/usr/bin/env node
// Builds bin netledger-ipam as ONE ESM file, like scripts/bundle-app.mjs, plus a V8 start-up
// snapshot of the same code (the plugin is executed once per container, so start-up cost matters):
//  - etcdv3 goes through etcd's HTTP/JSON gateway (@netledger/datastore-etcd/gateway), so the
//    bundle carries no gRPC client; a check below fails the build if one creeps in.
//  - dist/netledger-ipam.blob: `node --build-snapshot` of a CommonJS bundle of src/snapshot-main.ts
//    (the same code, evaluated and warmed up at build time). Loading it skips compiling and
//    evaluating the bundle; scripts/link-bins.mjs points bin/netledger-ipam at it. The blob only
//    loads in the Node binary that built it: link-bins checks (and rebuilds) it for the Node that
//    will run it (docs/cni.md, "Start-up cost").
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { chmodSync, rmSync } from 'node:fs';

const binName = 'netledger-ipam';
const outfile = `dist/${binName}.mjs`;
const snapshotEntry = `dist/${binName}.snapshot.cjs`;
const snapshotBlob = `dist/${binName}.blob`;
const GRPC_CODE = /[\\/]node_modules[\\/].*(etcd3|@grpc|protobufjs|cockatiel)[\\/]/;

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  conditions: ['source'],
  minifyWhitespace: true,
  minifySyntax: true,
  metafile: true,
  logLevel: 'warning',
};

/** Fails the build when a bundle carries the gRPC etcd client (the plugin talks to the gateway). */
function assertNoGrpc({ metafile }, what) {
  const grpc = Object.keys(metafile.inputs).filter((path) => GRPC_CODE.test(path));
  if (grpc.length > 0) throw new Error(`${what} bundles gRPC code: ${grpc.slice(0, 3).join(', ')}`);
}

assertNoGrpc(
  await build({
    ...common,
    entryPoints: ['src/main.ts'],
    outfile,
    format: 'esm',
    sourcemap: 'linked',
    banner: {
      js: "#!/usr/bin/env node\nimport { createRequire as __nlCreateRequire } from 'node:module';\nconst require = __nlCreateRequire(import.meta.url);",
    },
  }),
  outfile,
);
chmodSync(outfile, 0o755);

// A snapshot entry is a script whose require() knows the Node built-ins only: everything else is
// bundled.
assertNoGrpc(
  await build({
    ...common,
    entryPoints: ['src/snapshot-main.ts'],
    outfile: snapshotEntry,
    format: 'cjs',
  }),
  snapshotEntry,
);
rmSync(snapshotBlob, { force: true });
execFileSync(
  process.execPath,
  ['--snapshot-blob', snapshotBlob, '--build-snapshot', snapshotEntry],
  {
    stdio: 'inherit',
  },
);
