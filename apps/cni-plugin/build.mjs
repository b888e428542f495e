#!/usr/bin/env node
// Builds bin netledger-ipam as ONE ESM file, like scripts/bundle-app.mjs, plus a V8 start-up
// snapshot of the same code (the plugin is executed once per container, so start-up cost matters):
//  - etcdv3 goes through etcd's HTTP/JSON gateway (@netledger/datastore-etcd/gateway), so the
//    bundle's code carries no gRPC client; a check below fails the build if one creeps in.
//  - The gRPC adapter, for `etcd_transport: "grpc"` (etcd3, grpc-js, protobufjs), is bundled
//    separately as a minified CommonJS chunk and embedded as a brotli-compressed string, compiled
//    only when a config asks for it. etcd3 loads its .proto files from disk next to its own source,
//    which a bundle does not have: the descriptors are read at build time and inlined as JSON.
//  - The Kubernetes store, for `datastore_type: kubernetes` (datastore-k8s and js-yaml: it has its
//    own kubeconfig loader, no @kubernetes/client-node), is a chunk embedded the same way, compiled
//    when a kubernetes config first imports it; a check below keeps its code out of the bundle.
//  - dist/netledger-ipam.blob: `node --build-snapshot` of a CommonJS bundle of src/snapshot-main.ts
//    (the same code, evaluated and warmed up at build time). Loading it skips compiling and
//    evaluating the bundle; scripts/link-bins.mjs points bin/netledger-ipam at it. The blob only
//    loads in the Node binary that built it, with the V8 flags it was built with (package.json
//    "snapshotFlags"): link-bins checks (and rebuilds) it for the Node that will run it and passes
//    the same flags (docs/cni.md, "Start-up cost").
import { build } from 'esbuild';
import { nodeBundle, esmExecutableBanner } from '../../scripts/esbuild-node.mjs';
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, readFileSync, rmSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { brotliCompressSync } from 'node:zlib';

const binName = 'netledger-ipam';
const outfile = `dist/${binName}.mjs`;
const snapshotEntry = `dist/${binName}.snapshot.cjs`;
const snapshotBlob = `dist/${binName}.blob`;
// The V8 flags the blob is built and run with (docs/cni.md, "Start-up cost").
const { snapshotFlags } = JSON.parse(readFileSync('package.json', 'utf8'));
const GRPC_CODE = /[\\/]node_modules[\\/].*(etcd3|@grpc|protobufjs|cockatiel)[\\/]/;
// The Kubernetes store's code: the package itself, its YAML parser, and the library it replaced.
const K8S_CODE =
  /([\\/]datastore-k8s[\\/]src[\\/]|[\\/]node_modules[\\/].*(js-yaml|@kubernetes)[\\/])/;

const etcdRequire = createRequire(
  join(process.cwd(), 'node_modules/@netledger/datastore-etcd/package.json'),
);
const etcd3Dir = dirname(etcdRequire.resolve('etcd3/package.json'));
const protoRequire = createRequire(
  createRequire(join(etcd3Dir, 'package.json')).resolve('@grpc/proto-loader'),
);
const protobuf = protoRequire('protobufjs');

function etcdProtoJson() {
  const root = new protobuf.Root();
  root.loadSync(join(etcd3Dir, 'proto', 'rpc.proto'), { keepCase: true });
  return JSON.stringify(root.toJSON());
}

const inlineEtcdProtos = {
  name: 'inline-etcd-protos',
  setup(b) {
    b.onLoad({ filter: /etcd3[\\/]lib[\\/]connection-pool\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      const call = '(0, proto_loader_1.loadSync)(`${__dirname}/../proto/rpc.proto`,';
      if (!source.includes(call))
        throw new Error(`${args.path}: proto loading changed; update build.mjs`);
      return {
        contents: source.replace(call, `(0, proto_loader_1.fromJSON)(${etcdProtoJson()},`),
        loader: 'js',
      };
    });
  },
};

// Shared with the bundle (one IpamError class): evaluate-chunk.ts answers these.
const SHARED_WITH_CHUNKS = [
  '@netledger/ipam-core',
  '@netledger/ipam-core/adapter',
  '@netledger/ipam-core/block',
];

/**
 * Bundles `entry` as a minified CommonJS chunk that gets the main bundle's ipam-core, checks that
 * everything else it requires is a Node built-in (what evaluate-chunk.ts answers), and returns it
 * brotli-compressed as base64: the bundle carries that string instead of the source to scan.
 */
async function embeddedChunk(entry, what, plugins = []) {
  const chunk = await build({
    ...nodeBundle,
    entryPoints: [entry],
    write: false,
    format: 'cjs',
    external: SHARED_WITH_CHUNKS,
    minify: true,
    plugins,
    logLevel: 'warning',
  });
  const chunkText = chunk.outputFiles[0].text;
  const builtins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));
  for (const [, id] of chunkText.matchAll(/\brequire\("([^"]+)"\)/g)) {
    if (!SHARED_WITH_CHUNKS.includes(id) && !builtins.has(id))
      throw new Error(
        `${what} chunk requires ${id}, which is not a Node built-in; update build.mjs`,
      );
  }
  return brotliCompressSync(chunk.outputFiles[0].contents).toString('base64');
}

const chunkBase64 = await embeddedChunk('src/open-etcd-grpc.ts', 'gRPC', [inlineEtcdProtos]);
const k8sChunkBase64 = await embeddedChunk('src/open-k8s.ts', 'Kubernetes');

/** Serves `netledger:<name>` imports with the embedded chunks' text. */
const embedChunks = {
  name: 'embed-chunks',
  setup(b) {
    const chunks = { 'grpc-chunk': chunkBase64, 'k8s-chunk': k8sChunkBase64 };
    b.onResolve({ filter: /^netledger:(grpc|k8s)-chunk$/ }, (args) => ({
      path: args.path.slice('netledger:'.length),
      namespace: 'netledger',
    }));
    b.onLoad({ filter: /.*/, namespace: 'netledger' }, (args) => ({
      contents: `export default ${JSON.stringify(chunks[args.path])};`,
      loader: 'js',
    }));
  },
};

// The Kubernetes store is imported (lazily) by datastore-config's opener: in the bundle it is the
// module that compiles the embedded chunk.
const k8sStoreFromChunk = {
  name: 'k8s-store-from-chunk',
  setup(b) {
    b.onResolve({ filter: /^@netledger\/datastore-k8s$/ }, () => ({
      path: join(process.cwd(), 'src', 'k8s-store-from-chunk.ts'),
    }));
  },
};

const common = {
  ...nodeBundle,
  // Short identifiers too: the start-up snapshot carries the bundle's source text, and a smaller
  // heap deserializes faster. Nothing reads a function's name; the .mjs has a source map.
  minify: true,
  metafile: true,
  plugins: [embedChunks, k8sStoreFromChunk],
  logLevel: 'warning',
};

/**
 * Fails the build when a bundle's code carries the gRPC etcd client or the Kubernetes store
 * (they belong in their chunks).
 */
function assertNoGrpc({ metafile }, what) {
  const inputs = Object.keys(metafile.inputs);
  for (const [code, name] of [
    [GRPC_CODE, 'gRPC'],
    [K8S_CODE, 'Kubernetes store'],
  ]) {
    const found = inputs.filter((path) => code.test(path));
    if (found.length > 0)
      throw new Error(`${what} bundles ${name} code: ${found.slice(0, 3).join(', ')}`);
  }
}

assertNoGrpc(
  await build({
    ...common,
    entryPoints: ['src/main.ts'],
    outfile,
    format: 'esm',
    sourcemap: 'linked',
    banner: esmExecutableBanner,
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
// The node agent's Perl client, which the install lays down beside the bundle (docs/node-agent.md).
copyFileSync('src/agent-client.pl', 'dist/netledger-ipam-agent.pl');

rmSync(snapshotBlob, { force: true });
execFileSync(
  process.execPath,
  [...snapshotFlags, '--snapshot-blob', snapshotBlob, '--build-snapshot', snapshotEntry],
  {
    stdio: 'inherit',
  },
);
