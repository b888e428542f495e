#!/usr/bin/env node
// Builds bin netledger-node: dist/netledger-node.mjs, one minified ESM file (like
// scripts/bundle-app.mjs). A long-lived process, so no start-up snapshot; etcd is reached through
// its HTTP gateway, and a check fails the build if a gRPC client (etcd3, grpc-js) creeps in.
import { build } from 'esbuild';
import { nodeBundle, esmExecutableBanner } from '../../scripts/esbuild-node.mjs';
import { chmodSync } from 'node:fs';

const outfile = 'dist/netledger-node.mjs';
const result = await build({
  entryPoints: ['src/main.ts'],
  outfile,
  ...nodeBundle,
  format: 'esm',
  minify: true,
  keepNames: true,
  charset: 'ascii',
  legalComments: 'none',
  sourcemap: 'linked',
  metafile: true,
  banner: esmExecutableBanner,
  logLevel: 'warning',
});
const bundled = Object.keys(result.metafile.inputs).filter((p) =>
  /[\\/](etcd3|@grpc|protobufjs)[\\/]/.test(p),
);
if (bundled.length > 0) {
  console.error(
    `build.mjs: the bundle must not carry a gRPC client, but has:\n${bundled.join('\n')}`,
  );
  process.exit(1);
}
chmodSync(outfile, 0o755);
