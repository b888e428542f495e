import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  realpathSync,
  renameSync,
  writeFileSync,
} from 'node:fs';
import { join, relative } from 'node:path';
import {
  BIN,
  baseEntries,
  kubeControllersEntries,
  nodeAgentEntries,
  runtimeEntries,
  withParents,
} from './image-contents.js';
import type { HostFile } from './image-contents.js';
import { NETLEDGER_IMAGES, fullImageReference, imageTag } from './netledger-images.js';
import { createOciArchive } from './oci-archive.js';
import { createLayer } from './oci-layer.js';
import type { OciLayer } from './oci-layer.js';
import { sharedLibrariesOf } from './shared-libraries.js';

/** What {@link buildImages} reads and where it writes. */
export interface BuildImagesOptions {
  /** The workspace root (its apps' dist/ must be built). */
  readonly root: string;
  /** Where the archives go (`<root>/dist/images` for `pnpm images`). */
  readonly outDir: string;
  /** The Node.js binary the images run (default: the one running this). */
  readonly node?: string;
}

/** One archive written. */
export interface BuiltImage {
  readonly path: string;
  /** The fully qualified reference it is loaded under. */
  readonly reference: string;
  readonly manifestDigest: string;
  readonly configDigest: string;
  /** The archive's size in bytes (layers gzipped). */
  readonly size: number;
  /** The layers' uncompressed size in bytes: the image's size once unpacked. */
  readonly unpackedSize: number;
}

/** Go's names for Node's architectures: the image config's `architecture` and the client's build. */
const GOARCH: Readonly<Record<string, string>> = { x64: 'amd64', arm64: 'arm64' };

/** The oldest Node.js the bundles run on (the root package.json's engines). */
const MIN_NODE: readonly [number, number] = [20, 19];

function need(path: string): string {
  if (!existsSync(path)) throw new Error(`${path} is missing: run pnpm build first`);
  return path;
}

/** The files under `dir` (source maps left out), relative to it. */
function bundleFiles(dir: string): HostFile[] {
  return readdirSync(need(dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && !e.name.endsWith('.map'))
    .map((e) => {
      const path = join(e.parentPath, e.name);
      return { path: relative(dir, path), content: readFileSync(path) };
    });
}

/** The Node.js binary's version, refused below what the bundles need. */
function nodeVersion(node: string): string {
  const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number);
  if (major < MIN_NODE[0] || (major === MIN_NODE[0] && minor < MIN_NODE[1]))
    throw new Error(
      `${node} is Node.js ${version}; the bundles need ${MIN_NODE.join('.')} or later`,
    );
  return version;
}

/** Writes `content` to `path` through a temporary file and a rename. */
function writeAtomically(path: string, content: Buffer): void {
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, content);
  renameSync(tmp, path);
}

/**
 * Builds netledger's images (NETLEDGER_IMAGES) from scratch into `outDir` as OCI archives: a
 * runtime layer shared by both (this machine's Node.js, /usr/bin/env, the shared libraries and
 * loader ldd says they need, /etc/passwd and /etc/group with root and nonroot 65532, /tmp), then
 * each app's layer (node: netledger-node, the static client and its fallback; kube-controllers:
 * its bundle). The same inputs give byte-identical archives. Throws naming the missing file when
 * the apps are not built, and for an architecture or Node.js the images cannot carry; an archive
 * is replaced only once it is whole.
 */
export function buildImages(o: BuildImagesOptions): BuiltImage[] {
  const arch = GOARCH[process.arch];
  if (arch === undefined) throw new Error(`no image for this architecture (${process.arch})`);
  const app = (dir: string, ...path: string[]): string =>
    join(o.root, 'apps', dir, 'dist', ...path);
  // Every input is checked before the (slow) runtime layer is made.
  const inputs = {
    agent: need(app('node-agent', 'netledger-node.mjs')),
    client: need(app('cni-plugin', 'client', `linux-${arch}`, 'netledger-ipam')),
    fallback: need(app('cni-plugin', 'netledger-ipam.d')),
    controllers: need(app('kube-controllers', 'netledger-kube-controllers.mjs')),
  };
  const node = realpathSync(o.node ?? process.execPath);
  const env = realpathSync('/usr/bin/env');
  const version = nodeVersion(node);
  const libraries = [...new Set([...sharedLibrariesOf(node), ...sharedLibrariesOf(env)])]
    .sort()
    .map((path) => ({ path, content: readFileSync(path) }));
  const runtime = createLayer(
    withParents([
      ...baseEntries(),
      ...runtimeEntries({ node: readFileSync(node), env: readFileSync(env), libraries }),
    ]),
    `Node.js ${version} and /usr/bin/env with the ${libraries.length} files ldd lists for them (shared libraries, loader), /etc/passwd and /etc/group (root, nonroot 65532), /tmp`,
  );
  const appLayers: Record<(typeof NETLEDGER_IMAGES)[number]['file'], OciLayer> = {
    'netledger-node.oci.tar': createLayer(
      withParents(
        nodeAgentEntries({
          agent: readFileSync(inputs.agent),
          client: readFileSync(inputs.client),
          fallback: bundleFiles(inputs.fallback),
        }),
      ),
      `/${BIN}/netledger-node, /${BIN}/netledger-ipam and its Node.js side (netledger-ipam.d/)`,
    ),
    'netledger-kube-controllers.oci.tar': createLayer(
      withParents(kubeControllersEntries(readFileSync(inputs.controllers))),
      `/${BIN}/netledger-kube-controllers`,
    ),
  };
  mkdirSync(o.outDir, { recursive: true });
  return NETLEDGER_IMAGES.map((image) => {
    const tag = imageTag(o.root, image);
    const layers = [runtime, appLayers[image.file]];
    const built = createOciArchive({
      reference: fullImageReference(o.root, image),
      tag,
      architecture: arch,
      run: {
        user: image.user,
        entrypoint: image.entrypoint,
        env: ['PATH=/usr/local/bin:/usr/bin:/bin'],
        workingDir: '/',
        labels: {
          'org.opencontainers.image.title': image.title,
          'org.opencontainers.image.description': image.description,
          'org.opencontainers.image.version': tag,
          'org.opencontainers.image.licenses': 'Apache-2.0',
          'io.netledger.nodejs-version': version,
        },
      },
      layers,
    });
    const path = join(o.outDir, image.file);
    writeAtomically(path, built.archive);
    return {
      path,
      reference: fullImageReference(o.root, image),
      manifestDigest: built.manifestDigest,
      configDigest: built.configDigest,
      size: built.archive.length,
      unpackedSize: layers.reduce((n, l) => n + l.unpackedSize, 0),
    };
  });
}
