import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTempDir } from '@netledger/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { buildImages } from './build-images.js';

let tmp: { path: string; remove: () => Promise<void> } | undefined;
afterEach(async () => {
  await tmp?.remove();
  tmp = undefined;
});

describe('buildImages', () => {
  it('refuses unbuilt apps before anything, naming the first missing file, writing nothing', async () => {
    tmp = await createTempDir('netledger-images-unbuilt-');
    mkdirSync(join(tmp.path, 'apps', 'node-agent', 'dist'), { recursive: true });
    writeFileSync(join(tmp.path, 'apps', 'node-agent', 'dist', 'netledger-node.mjs'), '');
    const outDir = join(tmp.path, 'dist', 'images');
    expect(() => buildImages({ root: tmp!.path, outDir })).toThrow(
      `${join(tmp.path, 'apps', 'cni-plugin', 'dist', 'client')}/linux-`,
    );
    expect(() => buildImages({ root: tmp!.path, outDir })).toThrow(
      /netledger-ipam is missing: run pnpm build first$/,
    );
    expect(existsSync(outDir)).toBe(false);
  });
});
