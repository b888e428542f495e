import * as ipamCore from '@netledger/ipam-core';
import * as ipamCoreAdapter from '@netledger/ipam-core/adapter';
import type * as OpenGrpcEtcd from './open-etcd-grpc.js';

/**
 * The gRPC etcd adapter, compiled only when a config asks for `etcd_transport: "grpc"`: build.mjs
 * embeds it in the bundle as brotli-compressed CommonJS text (`netledger:grpc-chunk`). Its
 * `@netledger/ipam-core` imports are answered with this bundle's copies, so there is one IpamError
 * class.
 */
export function loadGrpcChunk(): Promise<typeof OpenGrpcEtcd> {
  loaded ??= evaluateChunk();
  return loaded;
}

let loaded: Promise<typeof OpenGrpcEtcd> | undefined;

async function evaluateChunk(): Promise<typeof OpenGrpcEtcd> {
  const { default: compressed } = await import('netledger:grpc-chunk');
  const { brotliDecompressSync } = process.getBuiltinModule('node:zlib');
  const code = brotliDecompressSync(Buffer.from(compressed, 'base64')).toString('utf8');
  // Everything else the chunk requires is a Node built-in (build.mjs checks), so neither the ESM
  // bundle nor the start-up snapshot needs a module resolver here.
  const shared: Record<string, unknown> = {
    '@netledger/ipam-core': ipamCore,
    '@netledger/ipam-core/adapter': ipamCoreAdapter,
  };
  const chunkRequire = (id: string): unknown => shared[id] ?? process.getBuiltinModule(id);
  const module = { exports: {} as typeof OpenGrpcEtcd };
  // The chunk is our own build output, embedded at build time; nothing from outside is evaluated.
  // eslint-disable-next-line @typescript-eslint/no-implied-eval
  const evaluate = new Function('require', 'module', 'exports', code) as (
    r: typeof chunkRequire,
    m: typeof module,
    e: typeof OpenGrpcEtcd,
  ) => void;
  evaluate(chunkRequire, module, module.exports);
  return module.exports;
}
