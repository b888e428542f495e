import * as ipamCore from '@netledger/ipam-core';
import type * as OpenEtcd from './open-etcd.js';

/**
 * The etcd adapter, compiled only when a config asks for etcdv3: build.mjs embeds it in the
 * bundle as brotli-compressed CommonJS text (`netledger:etcd-chunk`). Its `@netledger/ipam-core`
 * import is answered with this bundle's copy, so there is one IpamError class.
 */
export function loadEtcdChunk(): Promise<typeof OpenEtcd> {
  loaded ??= evaluateChunk();
  return loaded;
}

let loaded: Promise<typeof OpenEtcd> | undefined;

async function evaluateChunk(): Promise<typeof OpenEtcd> {
  const { default: compressed } = await import('netledger:etcd-chunk');
  const { brotliDecompressSync } = process.getBuiltinModule('node:zlib');
  const code = brotliDecompressSync(Buffer.from(compressed, 'base64')).toString('utf8');
  // Everything else the chunk requires is a Node built-in (build.mjs checks), so neither the ESM
  // bundle nor the start-up snapshot needs a module resolver here.
  const chunkRequire = (id: string): unknown =>
    id === '@netledger/ipam-core' ? ipamCore : process.getBuiltinModule(id);
  const module = { exports: {} as typeof OpenEtcd };
  // The chunk is our own build output, embedded at build time; nothing from outside is evaluated.
  // eslint-disable-next-line @typescript-eslint/no-implied-eval
  const evaluate = new Function('require', 'module', 'exports', code) as (
    r: typeof chunkRequire,
    m: typeof module,
    e: typeof OpenEtcd,
  ) => void;
  evaluate(chunkRequire, module, module.exports);
  return module.exports;
}
