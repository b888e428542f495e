import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ociArchitecture, ociImage, ociIndex } from './oci-image.js';

const sha = (b: Buffer): string => `sha256:${createHash('sha256').update(b).digest('hex')}`;

describe('ociImage', () => {
  const layer = Buffer.from('a layer tar');
  const image = ociImage({
    layer,
    architecture: 'amd64',
    run: { Cmd: ['sh'], Env: ['PATH=/bin'] },
  });

  it('names each blob by the sha256 of its bytes, and the config by its layer', () => {
    for (const blob of [image.layer, image.config, image.manifest]) {
      expect(blob.descriptor).toMatchObject({ digest: sha(blob.bytes), size: blob.bytes.length });
    }
    const config = JSON.parse(image.config.bytes.toString()) as Record<string, unknown>;
    expect(config).toEqual({
      architecture: 'amd64',
      os: 'linux',
      config: { Cmd: ['sh'], Env: ['PATH=/bin'] },
      rootfs: { type: 'layers', diff_ids: [sha(layer)] },
    });
    const manifest = JSON.parse(image.manifest.bytes.toString()) as Record<string, unknown>;
    expect(manifest).toMatchObject({
      schemaVersion: 2,
      config: image.config.descriptor,
      layers: [{ mediaType: 'application/vnd.oci.image.layer.v1.tar', digest: sha(layer) }],
    });
  });

  it('gives the same digests for the same inputs, and others for another process', () => {
    const again = ociImage({
      layer,
      architecture: 'amd64',
      run: { Cmd: ['sh'], Env: ['PATH=/bin'] },
    });
    expect(again.manifest.descriptor.digest).toBe(image.manifest.descriptor.digest);
    const other = ociImage({
      layer,
      architecture: 'amd64',
      run: { Cmd: ['ls'], Env: ['PATH=/bin'] },
    });
    expect(other.manifest.descriptor.digest).not.toBe(image.manifest.descriptor.digest);
    expect(other.layer.descriptor.digest).toBe(image.layer.descriptor.digest);
  });
});

describe('ociIndex', () => {
  it('annotates each manifest with the name containerd imports it as, and its tag', () => {
    const manifest = {
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      digest: 'sha256:ab',
      size: 3,
    };
    expect(
      JSON.parse(ociIndex([{ name: 'example.local/pause:3.10', manifest }]).toString()),
    ).toEqual({
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.index.v1+json',
      manifests: [
        {
          ...manifest,
          annotations: {
            'io.containerd.image.name': 'example.local/pause:3.10',
            'org.opencontainers.image.ref.name': '3.10',
          },
        },
      ],
    });
  });
});

describe('ociArchitecture', () => {
  it.each([
    ['x64', 'amd64'],
    ['arm64', 'arm64'],
    ['riscv64', 'riscv64'],
  ])('%s is %s', (arch, expected) => {
    expect(ociArchitecture(arch)).toBe(expected);
  });
});
