import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTempDir } from '@netledger/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { createOciArchive } from './oci-archive.js';
import type { OciImage } from './oci-archive.js';
import { createLayer } from './oci-layer.js';
import { readOciLayout } from './test-oci-layout.js';

const image = (): OciImage => ({
  reference: 'docker.io/netledger/test:1.2.3',
  tag: '1.2.3',
  architecture: 'amd64',
  run: {
    user: '65532:65532',
    entrypoint: ['/bin/app'],
    env: ['PATH=/bin'],
    workingDir: '/',
    labels: { 'org.opencontainers.image.version': '1.2.3' },
  },
  layers: [
    createLayer([{ kind: 'dir', path: 'bin', mode: 0o755 }], 'base'),
    createLayer(
      [{ kind: 'file', path: 'bin/app', mode: 0o755, content: Buffer.from('app\n') }],
      'app',
    ),
  ],
});

let tmp: { path: string; remove: () => Promise<void> } | undefined;
afterEach(async () => {
  await tmp?.remove();
  tmp = undefined;
});

describe('createOciArchive', () => {
  it('is a valid OCI layout: index, manifest, config and layers with matching digests and sizes', async () => {
    tmp = await createTempDir('netledger-oci-');
    const built = createOciArchive(image());
    writeFileSync(join(tmp.path, 'image.tar'), built.archive);
    const read = readOciLayout(join(tmp.path, 'image.tar'), join(tmp.path, 'layout'));
    expect(read.index.manifests[0]).toMatchObject({
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      digest: built.manifestDigest,
      platform: { architecture: 'amd64', os: 'linux' },
      annotations: {
        'io.containerd.image.name': 'docker.io/netledger/test:1.2.3',
        'org.opencontainers.image.ref.name': '1.2.3',
      },
    });
    expect(read.manifest.config.digest).toBe(built.configDigest);
    expect(read.manifest.layers.map((l) => l.mediaType)).toEqual([
      'application/vnd.oci.image.layer.v1.tar+gzip',
      'application/vnd.oci.image.layer.v1.tar+gzip',
    ]);
    expect(read.config).toMatchObject({
      architecture: 'amd64',
      os: 'linux',
      config: { User: '65532:65532', Entrypoint: ['/bin/app'], Env: ['PATH=/bin'] },
      history: [{ created_by: 'base' }, { created_by: 'app' }],
    });
    expect(read.files).toEqual(
      [
        'index.json',
        'oci-layout',
        `blobs/sha256/${built.manifestDigest.slice(7)}`,
        `blobs/sha256/${built.configDigest.slice(7)}`,
        ...read.manifest.layers.map((l) => `blobs/sha256/${l.digest.slice(7)}`),
      ].sort(),
    );
  });

  it('gives the same bytes and digests for the same image', () => {
    const a = createOciArchive(image());
    const b = createOciArchive(image());
    expect(b.manifestDigest).toBe(a.manifestDigest);
    expect(b.archive.equals(a.archive)).toBe(true);
  });
});
