import type { OciLayer } from './oci-layer.js';
import { sha256Digest } from './oci-layer.js';
import { createTarArchive } from './tar-archive.js';
import type { TarEntry } from './tar-archive.js';

/** OCI media types (image-spec v1.1). */
const MEDIA_TYPES = {
  index: 'application/vnd.oci.image.index.v1+json',
  manifest: 'application/vnd.oci.image.manifest.v1+json',
  config: 'application/vnd.oci.image.config.v1+json',
  layer: 'application/vnd.oci.image.layer.v1.tar+gzip',
} as const;

/** The time stamp the config and its history carry: the epoch, so a rebuild has the same digest. */
const CREATED = '1970-01-01T00:00:00Z';

/** What runs, and as whom: the image config's `config` object. */
interface OciRunConfig {
  readonly user: string;
  readonly entrypoint: readonly string[];
  readonly env: readonly string[];
  readonly workingDir: string;
  readonly labels: Readonly<Record<string, string>>;
}

/** An image to archive. */
export interface OciImage {
  /** The fully qualified reference runtimes look it up by, e.g. `docker.io/netledger/netledger-node:0.1.0`. */
  readonly reference: string;
  /** The tag alone (`org.opencontainers.image.ref.name`, as `docker save` writes it). */
  readonly tag: string;
  /** GOARCH-style (`amd64`, `arm64`). */
  readonly architecture: string;
  readonly run: OciRunConfig;
  /** Bottom first. */
  readonly layers: readonly OciLayer[];
}

/** An image archive and the digests that identify it. */
export interface OciArchive {
  readonly archive: Buffer;
  /** `sha256:<hex>` of the manifest: the image's digest, as `ctr` and `podman` show it. */
  readonly manifestDigest: string;
  /** `sha256:<hex>` of the config: the image ID. */
  readonly configDigest: string;
}

/** Canonical enough: the same value always gives the same bytes (key order as written). */
const json = (value: unknown): Buffer => Buffer.from(JSON.stringify(value));

/**
 * The OCI image layout of `image` as one tar (`oci-layout`, `index.json`, `blobs/sha256/...`),
 * which `podman load` and containerd's `ctr images import` read: the index names the manifest with
 * its platform and the annotations both read for the image's name (`io.containerd.image.name`, the
 * full reference; `org.opencontainers.image.ref.name`, the tag). Every part is deterministic (the
 * tar's, the epoch as creation time), so the same image gives the same archive and digests.
 */
export function createOciArchive(image: OciImage): OciArchive {
  const config = json({
    created: CREATED,
    architecture: image.architecture,
    os: 'linux',
    config: {
      User: image.run.user,
      Env: image.run.env,
      Entrypoint: image.run.entrypoint,
      WorkingDir: image.run.workingDir,
      Labels: image.run.labels,
    },
    rootfs: { type: 'layers', diff_ids: image.layers.map((l) => l.diffId) },
    history: image.layers.map((l) => ({ created: CREATED, created_by: l.createdBy })),
  });
  const configDigest = sha256Digest(config);
  const manifest = json({
    schemaVersion: 2,
    mediaType: MEDIA_TYPES.manifest,
    config: { mediaType: MEDIA_TYPES.config, digest: configDigest, size: config.length },
    layers: image.layers.map((l) => ({
      mediaType: MEDIA_TYPES.layer,
      digest: l.digest,
      size: l.blob.length,
    })),
  });
  const manifestDigest = sha256Digest(manifest);
  const index = json({
    schemaVersion: 2,
    mediaType: MEDIA_TYPES.index,
    manifests: [
      {
        mediaType: MEDIA_TYPES.manifest,
        digest: manifestDigest,
        size: manifest.length,
        platform: { architecture: image.architecture, os: 'linux' },
        annotations: {
          'io.containerd.image.name': image.reference,
          'org.opencontainers.image.ref.name': image.tag,
        },
      },
    ],
  });
  const blobs = new Map<string, Buffer>([
    [configDigest, config],
    [manifestDigest, manifest],
    ...image.layers.map((l): [string, Buffer] => [l.digest, l.blob]),
  ]);
  const entries: TarEntry[] = [
    {
      kind: 'file',
      path: 'oci-layout',
      mode: 0o644,
      content: json({ imageLayoutVersion: '1.0.0' }),
    },
    { kind: 'file', path: 'index.json', mode: 0o644, content: index },
    { kind: 'dir', path: 'blobs', mode: 0o755 },
    { kind: 'dir', path: 'blobs/sha256', mode: 0o755 },
    ...[...blobs].map(([digest, content]): TarEntry => ({
      kind: 'file',
      path: `blobs/sha256/${digest.slice('sha256:'.length)}`,
      mode: 0o644,
      content,
    })),
  ];
  return { archive: createTarArchive(entries), manifestDigest, configDigest };
}
