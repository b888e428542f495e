import { createHash } from 'node:crypto';

/** What an OCI blob is referred to by. */
export interface Descriptor {
  readonly mediaType: string;
  readonly digest: string;
  readonly size: number;
  readonly annotations?: Readonly<Record<string, string>>;
}

/** A blob's bytes and its descriptor. */
export interface Blob {
  readonly bytes: Buffer;
  readonly descriptor: Descriptor;
}

/** The process an image runs, as in the OCI image config's `config`. */
export interface ImageRunConfig {
  readonly Entrypoint?: readonly string[];
  readonly Cmd?: readonly string[];
  readonly Env: readonly string[];
}

const MEDIA = {
  layer: 'application/vnd.oci.image.layer.v1.tar',
  config: 'application/vnd.oci.image.config.v1+json',
  manifest: 'application/vnd.oci.image.manifest.v1+json',
  index: 'application/vnd.oci.image.index.v1+json',
} as const;

const sha256 = (bytes: Buffer): string =>
  `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

function blob(mediaType: string, bytes: Buffer): Blob {
  return { bytes, descriptor: { mediaType, digest: sha256(bytes), size: bytes.length } };
}

const json = (value: unknown): Buffer => Buffer.from(JSON.stringify(value));

/** The OCI architecture name of a Node.js `process.arch`. */
export function ociArchitecture(arch: string): string {
  const names: Record<string, string> = {
    x64: 'amd64',
    arm64: 'arm64',
    arm: 'arm',
    s390x: 's390x',
  };
  return names[arch] ?? arch;
}

/**
 * The blobs of one image whose only layer is the uncompressed tar `layer`: the layer, its config
 * (no creation time, so the same inputs give the same digest) and its manifest. The image's
 * name goes on the index entry (see {@link ociIndex}).
 */
export function ociImage(input: { layer: Buffer; run: ImageRunConfig; architecture: string }): {
  layer: Blob;
  config: Blob;
  manifest: Blob;
} {
  const layer = blob(MEDIA.layer, input.layer);
  const config = blob(
    MEDIA.config,
    json({
      architecture: input.architecture,
      os: 'linux',
      config: input.run,
      rootfs: { type: 'layers', diff_ids: [layer.descriptor.digest] },
    }),
  );
  const manifest = blob(
    MEDIA.manifest,
    json({
      schemaVersion: 2,
      mediaType: MEDIA.manifest,
      config: config.descriptor,
      layers: [layer.descriptor],
    }),
  );
  return { layer, config, manifest };
}

/**
 * The `index.json` of an OCI layout holding `images`, each manifest annotated with its full
 * name (`io.containerd.image.name`, which `ctr images import` names the image by) and its tag
 * (`org.opencontainers.image.ref.name`).
 */
export function ociIndex(images: readonly { name: string; manifest: Descriptor }[]): Buffer {
  return json({
    schemaVersion: 2,
    mediaType: MEDIA.index,
    manifests: images.map(({ name, manifest }) => ({
      ...manifest,
      annotations: {
        'io.containerd.image.name': name,
        'org.opencontainers.image.ref.name': name.slice(name.lastIndexOf(':') + 1),
      },
    })),
  });
}

/** The `oci-layout` file of an OCI image layout. */
export const OCI_LAYOUT = json({ imageLayoutVersion: '1.0.0' });
