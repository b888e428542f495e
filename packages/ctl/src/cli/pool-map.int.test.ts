import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTempDir } from '@netledger/testkit';
import { POOL_MAP_CELL } from '../commands/render-pool-map.js';
import { countCells } from '../test-support/count-cells.js';
import { decodePng } from '../test-support/decode-png.js';
import { runCli } from '../test-support/run-cli.js';
import { memoryStore } from '../test-support/seed.js';
import { seedPoolMap } from '../test-support/seed-pool-map.js';

// `ipam show --show-blocks -o html` rendered by Debian's headless Chromium (scripts/prerequisites
// installs the `chromium` package), and the blocks counted in its screenshot. With
// NETLEDGER_POOL_MAP_PNG=PATH the two-pool screenshot is also copied there (docs/pool-map.png is
// made so).
const CHROMIUM = '/usr/bin/chromium';
const run = promisify(execFile);

let dir: { path: string; remove: () => Promise<void> };
beforeEach(async () => {
  dir = await createTempDir('netledgerctl-pool-map-');
});
afterEach(async () => {
  await dir.remove();
});

/** The page `ipam show --show-blocks -o html` writes for a store seeded with these pools. */
async function poolMapPage(options: Parameters<typeof seedPoolMap>[1]): Promise<string> {
  const store = memoryStore();
  await seedPoolMap(store, options);
  const r = await runCli(['ipam', 'show', '--show-blocks', '-o', 'html'], {
    io: { openDatastore: () => Promise.resolve(store.datastore) },
  });
  expect(r).toMatchObject({ code: 0, stderr: '' });
  return r.stdout;
}

/** Chromium's screenshot of a page, `width` by `height` CSS pixels at scale 1. */
async function screenshot(html: string, width: number, height: number): Promise<string> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: install Debian's chromium (scripts/prerequisites)`);
  }
  const page = join(dir.path, 'pools.html');
  const png = join(dir.path, 'pools.png');
  await writeFile(page, html);
  await run(
    CHROMIUM,
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--hide-scrollbars',
      '--force-device-scale-factor=1',
      // Nothing may come from the network: any name lookup fails.
      '--host-resolver-rules=MAP * ~NOTFOUND',
      `--user-data-dir=${join(dir.path, 'profile')}`,
      `--window-size=${width},${height}`,
      `--screenshot=${png}`,
      `file://${page}`,
    ],
    { timeout: 120_000 },
  );
  return png;
}

describe('ipam show --show-blocks -o html in Chromium', () => {
  it('draws one cell per block: 1,000 blocks on two pools', async () => {
    const html = await poolMapPage({
      pools: [
        { name: 'pods-a', base: (10 << 24) >>> 0, prefix: 16, blocks: 600 },
        { name: 'pods-b', base: ((10 << 24) | (1 << 16)) >>> 0, prefix: 16, blocks: 400 },
      ],
      nodes: 12,
    });
    expect(html).not.toMatch(/<script|<link|<img|src=|href=|url\(|@import|https?:/i);
    expect(html.match(/<div class="c[ "]/g)).toHaveLength(1000);
    const png = await screenshot(html, 1000, 760);
    expect(countCells(decodePng(await readFile(png)), POOL_MAP_CELL.size)).toBe(1000);
    const keep = process.env.NETLEDGER_POOL_MAP_PNG;
    if (keep) await copyFile(png, keep);
  }, 180_000);

  it('stays one cell per block at 10,000 blocks', async () => {
    const html = await poolMapPage({
      pools: [{ name: 'big', base: (10 << 24) >>> 0, prefix: 12, blocks: 10_000 }],
      nodes: 40,
    });
    const rows = Math.ceil(10_000 / POOL_MAP_CELL.columns);
    const height = rows * (POOL_MAP_CELL.size + POOL_MAP_CELL.gap) + 400;
    const png = await screenshot(html, 1000, height);
    expect(countCells(decodePng(await readFile(png)), POOL_MAP_CELL.size)).toBe(10_000);
  }, 300_000);
});
