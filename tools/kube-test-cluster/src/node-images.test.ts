import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BUSYBOX_IMAGE, buildNodeImages, PAUSE_IMAGE } from './node-images.js';

/**
 * A guard against a runaway build, not a speed target: the two builds take about 7 s on an idle
 * runner and went past vitest's default 30 s while the rest of the suite loaded both cores.
 */
const BUILD_TIMEOUT_MS = 300_000;

describe('buildNodeImages', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ktc-images-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it(
    'builds the pause and busybox images from busybox-static, the same digests each time',
    async () => {
      const first = await buildNodeImages({
        busybox: '/bin/busybox',
        workDir: join(dir, 'a'),
        out: join(dir, 'a.tar'),
      });
      const second = await buildNodeImages({
        busybox: '/bin/busybox',
        workDir: join(dir, 'b'),
        out: join(dir, 'b.tar'),
      });
      expect(first.map((i) => i.name)).toEqual([PAUSE_IMAGE, BUSYBOX_IMAGE]);
      expect(second).toEqual(first);
      expect(await readFile(join(dir, 'b.tar'))).toEqual(await readFile(join(dir, 'a.tar')));
      const files = execFileSync('tar', ['-tf', join(dir, 'a.tar')], { encoding: 'utf8' }).split(
        '\n',
      );
      expect(files).toEqual(expect.arrayContaining(['./oci-layout', './index.json']));
      // Five blobs: one shared layer, two configs, two manifests.
      expect(files.filter((f) => f.startsWith('./blobs/sha256/') && f.length > 20)).toHaveLength(5);
    },
    BUILD_TIMEOUT_MS,
  );

  it(
    'gives the test image a shell, ping and ip, all links to the one busybox',
    async () => {
      await buildNodeImages({ busybox: '/bin/busybox', workDir: dir, out: join(dir, 'i.tar') });
      const rootfs = execFileSync('ls', ['-l', join(dir, 'rootfs', 'bin')], { encoding: 'utf8' });
      for (const applet of ['sh', 'ping', 'ip', 'sleep']) {
        expect(rootfs).toMatch(new RegExp(` ${applet} -> busybox\\n`));
      }
    },
    BUILD_TIMEOUT_MS,
  );

  it('refuses a busybox that is not statically linked, naming the package to install', async () => {
    const fake = join(dir, 'busybox');
    await writeFile(fake, '#!/bin/sh\n');
    await expect(
      buildNodeImages({ busybox: fake, workDir: join(dir, 'w'), out: join(dir, 'o.tar') }),
    ).rejects.toMatchObject({
      code: 'MISSING_PREREQUISITE',
      message: expect.stringContaining('apt-get install -y busybox-static'),
    });
    await expect(
      buildNodeImages({
        busybox: join(dir, 'none'),
        workDir: join(dir, 'w'),
        out: join(dir, 'o.tar'),
      }),
    ).rejects.toMatchObject({ code: 'MISSING_PREREQUISITE' });
  });
});
