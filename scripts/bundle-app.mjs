#!/usr/bin/env node
// Bundle an app's entry point into one ESM file (apps are executed once per call, so start-up
// cost matters: one file, no workspace resolution at run time).
// Usage (from an app directory): node ../../scripts/bundle-app.mjs <entry.ts> <bin-name> [--external <module>]...
// Native modules (.node addons) cannot be bundled: name them with --external.
import { build } from 'esbuild';
import { nodeBundle, esmExecutableBanner } from './esbuild-node.mjs';
import { execFileSync } from 'node:child_process';
import { chmodSync } from 'node:fs';

const [entry, binName, ...rest] = process.argv.slice(2);
const external = rest.flatMap((arg, i) => (rest[i - 1] === '--external' ? [arg] : []));
if (!entry || !binName) {
  console.error('usage: bundle-app.mjs <entry.ts> <bin-name>');
  process.exit(2);
}
const outfile = `dist/${binName}.mjs`;

/** The commit being built (12 hex digits, as Calico's GIT_REVISION), or "unknown" outside git. */
function gitCommit() {
  try {
    return execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return 'unknown';
  }
}

await build({
  entryPoints: [entry],
  outfile,
  ...nodeBundle,
  format: 'esm',
  external,
  sourcemap: 'linked',
  banner: esmExecutableBanner,
  // An app reads it as `NETLEDGER_COMMIT` (netledgerctl version): the commit of this build.
  define: { NETLEDGER_COMMIT: JSON.stringify(gitCommit()) },
  logLevel: 'warning',
});
chmodSync(outfile, 0o755);
