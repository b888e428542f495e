#!/usr/bin/env node
// Builds netledger-ipam:
//  - dist/client/linux-<arch>/netledger-ipam: the static client a host runs (client/, Go standard
//    library only, CGO_ENABLED=0), for linux/amd64 and linux/arm64, reproducible (-trimpath, no
//    build id or VCS stamp).
//  - dist/netledger-ipam.d/: the Node.js fallback the client runs when no node agent answers, a
//    plain ES module bundle (netledger-ipam.mjs) whose rarely used parts are chunks it imports
//    when a config asks for them (chunks/): the Kubernetes store and the gRPC etcd client. etcd is
//    reached through its HTTP/JSON gateway by default; a check below keeps the gRPC client and the
//    Kubernetes store out of the entry itself. etcd3 loads its .proto files from disk next to its
//    own source, which a bundle does not have: the descriptors are inlined as JSON at build time.
// `pnpm build` then lays them out in bin/ with `netledger-ipam install --bin-dir bin`.
import { execFileSync } from 'node:child_process';
import { chmodSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { build } from 'esbuild';
import { esmExecutableBanner, nodeBundle } from '../../scripts/esbuild-node.mjs';

const outdir = 'dist/netledger-ipam.d';
const GOARCHES = ['amd64', 'arm64'];
const GRPC_CODE = /[\\/]node_modules[\\/].*(etcd3|@grpc|protobufjs|cockatiel)[\\/]/;
const K8S_CODE =
  /([\\/]datastore-k8s[\\/]src[\\/]|[\\/]node_modules[\\/].*(yaml|@kubernetes)[\\/])/;

rmSync('dist', { recursive: true, force: true });
for (const arch of GOARCHES) {
  execFileSync(
    'go',
    [
      'build',
      '-trimpath',
      '-buildvcs=false',
      '-ldflags=-s -w -buildid=',
      '-o',
      join('..', 'dist', 'client', `linux-${arch}`, 'netledger-ipam'),
      '.',
    ],
    {
      cwd: 'client',
      stdio: 'inherit',
      env: {
        ...process.env,
        CGO_ENABLED: '0',
        GOOS: 'linux',
        GOARCH: arch,
        GOTOOLCHAIN: 'local',
        GOFLAGS: '-mod=mod',
      },
    },
  );
}

const etcdRequire = createRequire(
  join(process.cwd(), 'node_modules/@netledger/datastore-etcd/package.json'),
);
const etcd3Dir = dirname(etcdRequire.resolve('etcd3/package.json'));
const protoRequire = createRequire(
  createRequire(join(etcd3Dir, 'package.json')).resolve('@grpc/proto-loader'),
);
const protobuf = protoRequire('protobufjs');

const inlineEtcdProtos = {
  name: 'inline-etcd-protos',
  setup(b) {
    b.onLoad({ filter: /etcd3[\\/]lib[\\/]connection-pool\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      const call = '(0, proto_loader_1.loadSync)(`${__dirname}/../proto/rpc.proto`,';
      if (!source.includes(call))
        throw new Error(`${args.path}: proto loading changed; update build.mjs`);
      const root = new protobuf.Root();
      root.loadSync(join(etcd3Dir, 'proto', 'rpc.proto'), { keepCase: true });
      return {
        contents: source.replace(
          call,
          `(0, proto_loader_1.fromJSON)(${JSON.stringify(root.toJSON())},`,
        ),
        loader: 'js',
      };
    });
  },
};

const { metafile } = await build({
  ...nodeBundle,
  entryPoints: { 'netledger-ipam': 'src/main.ts' },
  outdir,
  format: 'esm',
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  outExtension: { '.js': '.mjs' },
  minify: true,
  sourcemap: 'linked',
  metafile: true,
  banner: esmExecutableBanner,
  plugins: [inlineEtcdProtos],
  logLevel: 'warning',
});

// What the entry loads at start-up (itself and the chunks it imports statically) must carry
// neither the gRPC client nor the Kubernetes store: they cost every invocation their compile time.
const entry = `${outdir}/netledger-ipam.mjs`;
const startUp = new Set();
const visit = (file) => {
  if (startUp.has(file)) return;
  startUp.add(file);
  for (const i of metafile.outputs[file].imports)
    if (i.kind === 'import-statement' && !i.external) visit(i.path);
};
visit(entry);
for (const file of startUp) {
  for (const [code, what] of [
    [GRPC_CODE, 'the gRPC etcd client'],
    [K8S_CODE, 'the Kubernetes store'],
  ]) {
    const found = Object.keys(metafile.outputs[file].inputs).filter((p) => code.test(p));
    if (found.length > 0)
      throw new Error(`${file} loads ${what} at start-up: ${found.slice(0, 3).join(', ')}`);
  }
}
chmodSync(entry, 0o755);
