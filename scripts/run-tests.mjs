#!/usr/bin/env node
// The one test command: brings what the tests need (system packages, dependencies, a build),
// then typechecks, lints and runs every test of every package, and ends with
// "N passed, N failed, N skipped" (a test that skips itself hides what it was written to check).
import { readFileSync, existsSync, readdirSync, rmSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureKubeApiserver, ensureSystemPackages, ensurePnpm, run } from './prerequisites.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
process.chdir(root);
ensureSystemPackages();
ensurePnpm(root);
const pnpmRun = (...args) => run('pnpm', args);

const steps = [
  ['install', () => pnpmRun('install', '--frozen-lockfile')],
  ['build', () => pnpmRun('run', 'build')],
  ['kube-apiserver build', () => ensureKubeApiserver(root)],
  ['typecheck', () => pnpmRun('run', 'typecheck')],
  ['lint', () => pnpmRun('run', 'lint')],
];
for (const [name, step] of steps) {
  if (step() !== 0) {
    console.error(`\n${name} failed`);
    console.log('0 passed, 1 failed, 0 skipped');
    process.exit(1);
  }
}

const workspaces = ['packages', 'apps', 'tools'].flatMap((d) =>
  existsSync(join(root, d)) ? readdirSync(join(root, d)).map((p) => join(root, d, p)) : [],
);
for (const w of workspaces) rmSync(join(w, '.vitest-results.json'), { force: true });
// Two packages at a time on these 2-core machines: the etcd, netns and exec tests measure time.
const status = pnpmRun(
  'exec',
  'turbo',
  'run',
  'test',
  '--env-mode=loose',
  '--continue',
  '--force',
  '--concurrency=2',
  '--filter=!@netledger/fresh-clone',
);
// Last and alone: the README's set-up (`npm run demo`) on a fresh clone outside the allowed path
// roots, with no pnpm on PATH (tools/fresh-clone).
const freshClone = pnpmRun('--filter', '@netledger/fresh-clone', 'run', 'test');

let passed = 0;
let failed = 0;
let skipped = 0;
for (const w of workspaces) {
  const report = join(w, '.vitest-results.json');
  if (!existsSync(report)) continue;
  const r = JSON.parse(readFileSync(report, 'utf8'));
  passed += r.numPassedTests;
  failed += r.numFailedTests;
  skipped += r.numPendingTests + r.numTodoTests;
  // A suite that failed to load (syntax error, failed beforeAll) has no test results of its own.
  failed += (r.testResults ?? []).filter(
    (t) => t.status === 'failed' && t.assertionResults.length === 0,
  ).length;
}
if ((status !== 0 || freshClone !== 0) && failed === 0) failed = 1;
// Every test runs on a machine like this one: a test that skipped checked nothing.
if (skipped > 0) console.error(`\n${skipped} test(s) skipped: make them run, or remove them`);
console.log(`\n${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(status !== 0 || freshClone !== 0 || failed > 0 || skipped > 0 ? 1 : 0);
