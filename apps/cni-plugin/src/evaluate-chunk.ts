import * as ipamCore from '@netledger/ipam-core';
import * as ipamCoreAdapter from '@netledger/ipam-core/adapter';
import * as ipamCoreBlock from '@netledger/ipam-core/block';

/** The modules a chunk shares with the bundle (build.mjs's SHARED_WITH_CHUNKS). */
const SHARED: Readonly<Record<string, unknown>> = {
  '@netledger/ipam-core': ipamCore,
  '@netledger/ipam-core/adapter': ipamCoreAdapter,
  '@netledger/ipam-core/block': ipamCoreBlock,
};

/**
 * Compiles and runs a chunk that build.mjs embedded (brotli-compressed CommonJS as base64) and
 * returns its exports. Its `@netledger/ipam-core` imports are answered with this bundle's copies
 * (one IpamError class); everything else it requires is a Node built-in (build.mjs checks), so neither
 * the ESM bundle nor the start-up snapshot needs a module resolver here.
 */
export function evaluateChunk<T>(compressed: string): T {
  const { brotliDecompressSync } = process.getBuiltinModule('node:zlib');
  const code = brotliDecompressSync(Buffer.from(compressed, 'base64')).toString('utf8');
  const chunkRequire = (id: string): unknown => SHARED[id] ?? process.getBuiltinModule(id);
  const module = { exports: {} as T };
  // The chunk is our own build output, embedded at build time; nothing from outside is evaluated.
  // eslint-disable-next-line @typescript-eslint/no-implied-eval
  const evaluate = new Function('require', 'module', 'exports', code) as (
    r: typeof chunkRequire,
    m: typeof module,
    e: T,
  ) => void;
  evaluate(chunkRequire, module, module.exports);
  return module.exports;
}
