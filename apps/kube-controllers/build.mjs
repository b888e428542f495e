#!/usr/bin/env node
// Builds bin netledger-kube-controllers: dist/netledger-kube-controllers.mjs, one minified ESM
// file (like scripts/bundle-app.mjs). A long-lived process: what matters is the memory the code
// itself holds, so the bundle is minified (V8 keeps a script's source text, as two-byte characters
// as soon as one comment holds a non-ASCII one) and carries no gRPC client (etcd is reached through
// its HTTP gateway; a static import of etcd3 anywhere in the bundle would load grpc-js and
// protobufjs at start-up). A check fails the build if etcd3 or grpc-js creeps in.
// Usage: node build.mjs [bin-name]
import { build } from 'esbuild';
import { nodeBundle, esmExecutableBanner } from '../../scripts/esbuild-node.mjs';
import { chmodSync } from 'node:fs';

const binName = process.argv[2] ?? 'netledger-kube-controllers';
const outfile = `dist/${binName}.mjs`;
const result = await build({
  entryPoints: ['src/main.ts'],
  outfile,
  ...nodeBundle,
  format: 'esm',
  minify: true,
  // Libraries (client-node's serializer, prom-client) read class and function names.
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
    `build.mjs: the bundle must not carry a gRPC client, but has:\n${bundled.slice(0, 5).join('\n')}`,
  );
  process.exit(1);
}
chmodSync(outfile, 0o755);
