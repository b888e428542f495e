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
