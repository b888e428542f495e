import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { createTarArchive } from './tar-archive.js';
import type { TarEntry } from './tar-archive.js';

/** A filesystem layer of an OCI image: its gzipped tar and the digests that name it. */
export interface OciLayer {
  /** What the image config's history says made it. */
  readonly createdBy: string;
  /** The gzipped tar: the blob the manifest names. */
  readonly blob: Buffer;
  /** `sha256:<hex>` of the blob. */
  readonly digest: string;
  /** `sha256:<hex>` of the uncompressed tar: the config's `rootfs.diff_ids` entry. */
  readonly diffId: string;
  /** The uncompressed tar's size in bytes. */
  readonly unpackedSize: number;
}

/** `sha256:<hex>` of `content`, as OCI descriptors name blobs. */
export function sha256Digest(content: Buffer): string {
  return `sha256:${createHash('sha256').update(content).digest('hex')}`;
}

/**
 * A layer holding `entries` (createTarArchive: sorted, fixed times and owners), gzipped at level
 * 9 with no name or time in the gzip header, so the same entries give the same digests (with the
 * same zlib: this Node.js's).
 */
export function createLayer(entries: readonly TarEntry[], createdBy: string): OciLayer {
  const tar = createTarArchive(entries);
  const blob = gzipSync(tar, { level: 9 });
  return {
    createdBy,
    blob,
    digest: sha256Digest(blob),
    diffId: sha256Digest(tar),
    unpackedSize: tar.length,
  };
}
