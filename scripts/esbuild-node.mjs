// What every netledger bundle for Node shares, for the apps' build scripts and scripts/*.mjs.

/** esbuild options of a one-file bundle for Node 20 built from the workspace's TypeScript sources. */
export const nodeBundle = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  conditions: ['source'],
};

/**
 * The banner of an executable ESM bundle: a shebang, and a `require` for the CommonJS code it
 * inlines (an ESM module has none).
 */
export const esmExecutableBanner = {
  js: "#!/usr/bin/env node\nimport { createRequire as __nlCreateRequire } from 'node:module';\nconst require = __nlCreateRequire(import.meta.url);",
};

/**
 * Builds `dist/<binName>.mjs` from `src/main.ts` for a long-lived process (a daemon, a
 * controller): what matters is the memory its code holds, so it is minified (V8 keeps a script's
 * source text, as two-byte characters as soon as one comment holds a non-ASCII one) with names kept
 * (client-node's serializer and prom-client read class and function names), and it must carry no
 * gRPC client (etcd is reached through its HTTP gateway; a static import of etcd3 would load
 * grpc-js and protobufjs at start-up): the build fails if one creeps in.
 */
export async function bundleLongLivedApp(binName) {
  const { build } = await import('esbuild');
  const { chmodSync } = await import('node:fs');
  const outfile = `dist/${binName}.mjs`;
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
      `build: ${outfile} must not carry a gRPC client, but has:\n${bundled.slice(0, 5).join('\n')}`,
    );
    process.exit(1);
  }
  chmodSync(outfile, 0o755);
}
