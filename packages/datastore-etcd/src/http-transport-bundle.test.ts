import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTempDir, findFreePort } from '@netledger/testkit';
import { build } from 'esbuild';
import type { Metafile } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The point of the HTTP transport is a process that never loads gRPC. These tests bundle small
// programs with esbuild, as the CNI plugin's build does, and look at what ends up in them.

const SRC = fileURLToPath(new URL('.', import.meta.url));
// cockatiel is not gRPC code: etcd3 brings it, and the session's retry policy (both transports)
// uses it too.
const GRPC_CODE = /[\\/]node_modules[\\/].*(etcd3|@grpc|protobufjs)[\\/]/;

const grpcInputs = (inputs: Record<string, unknown>): string[] =>
  Object.keys(inputs).filter((path) => GRPC_CODE.test(path));

async function bundle(
  contents: string,
  options: { outdir: string; splitting?: boolean; write?: boolean },
): Promise<Metafile> {
  const result = await build({
    stdin: { contents, resolveDir: SRC, loader: 'ts' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    conditions: ['source'],
    metafile: true,
    logLevel: 'silent',
    outdir: options.outdir,
    splitting: options.splitting ?? false,
    write: options.write ?? false,
  });
  return result.metafile;
}

/** The bundle's entry file (not the chunks it may import later): its path and what it contains. */
const entryOutput = (metafile: Metafile): Metafile['outputs'][string] & { path: string } => {
  const entry = Object.entries(metafile.outputs).find(([, o]) => o.entryPoint !== undefined);
  if (!entry) throw new Error('no entry output');
  return { ...entry[1], path: entry[0] };
};

describe('bundles of the HTTP transport', () => {
  let dir: Awaited<ReturnType<typeof createTempDir>>;
  beforeAll(async () => {
    dir = await createTempDir('netledger-bundle-');
  });
  afterAll(async () => {
    await dir.remove();
  });

  it('createEtcdGatewayDatastore imports no gRPC code at all, not even lazily', async () => {
    const metafile = await bundle(
      `import { createEtcdGatewayDatastore } from './create-etcd-gateway-datastore.js';
       export const ds = createEtcdGatewayDatastore({ endpoints: ['http://127.0.0.1:2379'] });`,
      { outdir: dir.path },
    );
    expect(Object.keys(metafile.inputs).length).toBeGreaterThan(10); // ipam-core and ours
    expect(grpcInputs(metafile.inputs)).toEqual([]);
  });

  it('the gateway entry (@netledger/datastore-etcd/gateway) imports no gRPC code', async () => {
    const metafile = await bundle(
      `import { createEtcdGatewayDatastore, parseEtcdEndpoints } from './gateway.js';
       export const ds = createEtcdGatewayDatastore({ endpoints: parseEtcdEndpoints('http://127.0.0.1:2379') });`,
      { outdir: dir.path },
    );
    expect(grpcInputs(metafile.inputs)).toEqual([]);
  });

  it.each([
    ['http', /^Unavailable etcd at http:\/\/127\.0\.0\.1:\d+ unreachable: /],
    ['grpc', /Cannot find module|ERR_MODULE_NOT_FOUND/],
  ])(
    "createEtcdDatastore({ transport: '%s' }) with the gRPC chunks deleted",
    async (transport, outcome) => {
      // Split, the gRPC transport is a chunk of its own that only the dynamic import loads.
      // Deleted, it cannot be evaluated: the http transport must not notice.
      const outdir = join(dir.path, transport);
      const port = await findFreePort();
      const metafile = await bundle(
        `import { createEtcdDatastore } from './index.js';
         const ds = createEtcdDatastore({
           endpoints: ['http://127.0.0.1:${port}'], transport: '${transport}', dialTimeoutMs: 200,
         });
         try {
           await ds.get({ kind: 'IPAMConfig' });
         } catch (e) {
           console.log(e.code, e.message);
         }
         await ds.close();`,
        { outdir, splitting: true, write: true },
      );
      const entry = entryOutput(metafile);
      expect(grpcInputs(entry.inputs)).toEqual([]);
      const grpcChunks = Object.entries(metafile.outputs)
        .filter(([, o]) => grpcInputs(o.inputs).length > 0)
        .map(([path]) => path);
      expect(grpcChunks).toHaveLength(1);
      for (const path of grpcChunks) rmSync(path);
      writeFileSync(join(outdir, 'package.json'), '{"type":"module"}');
      const output = execFileSync(process.execPath, [entry.path], { encoding: 'utf8' });
      expect(output).toMatch(outcome);
    },
  );
});
