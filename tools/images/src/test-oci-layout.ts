// Reads an OCI image archive back as a runtime would, checking every link of it: the tar (read
// by GNU tar), oci-layout, the index, the manifest it names, the config and the layers, each
// blob's digest and size as its descriptor says, and each layer's diff_id (its uncompressed
// digest). For tests only.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';

interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  platform?: { architecture: string; os: string };
  annotations?: Record<string, string>;
}

/** What the archive holds, once every digest and size has been checked. */
export interface ReadOciLayout {
  readonly index: { schemaVersion: number; mediaType: string; manifests: Descriptor[] };
  readonly manifest: {
    schemaVersion: number;
    mediaType: string;
    config: Descriptor;
    layers: Descriptor[];
  };
  readonly config: {
    architecture: string;
    os: string;
    config: {
      User: string;
      Entrypoint: string[];
      Env: string[];
      WorkingDir: string;
      Labels: Record<string, string>;
    };
    rootfs: { type: string; diff_ids: string[] };
    history: { created_by: string }[];
  };
  /** The uncompressed layer tars, bottom first. */
  readonly layers: Buffer[];
  /** Every file in the archive (`blobs/sha256/...`, `index.json`, `oci-layout`). */
  readonly files: string[];
}

const digestOf = (b: Buffer): string => `sha256:${createHash('sha256').update(b).digest('hex')}`;

/**
 * Extracts `archive` with tar into `dir` and checks it as a valid OCI image layout with one
 * manifest; throws saying which link is broken.
 */
export function readOciLayout(archive: string, dir: string): ReadOciLayout {
  mkdirSync(dir, { recursive: true });
  execFileSync('tar', ['-xf', archive, '-C', dir]);
  const files = (readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => statSync(join(dir, f)).isFile())
    .sort();
  const layout = JSON.parse(readFileSync(join(dir, 'oci-layout'), 'utf8')) as unknown;
  if (JSON.stringify(layout) !== '{"imageLayoutVersion":"1.0.0"}')
    throw new Error(`oci-layout: ${JSON.stringify(layout)}`);
  const blob = (d: Descriptor): Buffer => {
    const content = readFileSync(join(dir, 'blobs', ...d.digest.split(':')));
    if (digestOf(content) !== d.digest)
      throw new Error(`${d.digest}: its content does not hash to it`);
    if (content.length !== d.size)
      throw new Error(`${d.digest}: ${content.length} bytes, not ${d.size}`);
    return content;
  };
  const index = JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8')) as ReadOciLayout['index'];
  if (index.manifests.length !== 1)
    throw new Error(`index.json: ${index.manifests.length} manifests`);
  const manifest = JSON.parse(blob(index.manifests[0]!).toString()) as ReadOciLayout['manifest'];
  const config = JSON.parse(blob(manifest.config).toString()) as ReadOciLayout['config'];
  const layers = manifest.layers.map((d) => gunzipSync(blob(d)));
  const diffIds = layers.map(digestOf);
  if (JSON.stringify(diffIds) !== JSON.stringify(config.rootfs.diff_ids))
    throw new Error(
      `diff_ids ${config.rootfs.diff_ids.join(',')} are not the layers' ${diffIds.join(',')}`,
    );
  const named = new Set(
    [index.manifests[0]!, manifest.config, ...manifest.layers].map((d) => d.digest),
  );
  const stray = files.filter(
    (f) => f.startsWith('blobs/') && !named.has(f.slice('blobs/'.length).replace('/', ':')),
  );
  if (stray.length > 0) throw new Error(`blobs nothing names: ${stray.join(', ')}`);
  return { index, manifest, config, layers, files };
}

/** Extracts `layers` in order into `rootfs` with tar, as a runtime unpacks an image. */
export function unpackLayers(layers: readonly Buffer[], rootfs: string): void {
  mkdirSync(rootfs, { recursive: true });
  for (const layer of layers) execFileSync('tar', ['-x', '-C', rootfs], { input: layer });
}
