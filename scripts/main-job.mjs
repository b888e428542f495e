#!/usr/bin/env node
// `npm run demo`: installs dependencies, builds, and runs the main job on the embedded file store
// (a store file under .netledger/ in the checkout, so it touches nothing else on the machine).
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pnpmCommand, run } from './prerequisites.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
process.chdir(root);
const [pnpm, ...pnpmArgs] = pnpmCommand();
for (const args of [
  ['install', '--frozen-lockfile'],
  ['run', 'build'],
]) {
  if (run(pnpm, [...pnpmArgs, ...args]) !== 0) process.exit(1);
}
const store = join(root, '.netledger', 'datastore.json');
mkdirSync(dirname(store), { recursive: true });
const env = { ...process.env, NETLEDGER_DATASTORE_PATH: store };
process.exit(run(pnpm, [...pnpmArgs, '--filter', '@netledger/demo', 'run', 'demo'], { env }));
