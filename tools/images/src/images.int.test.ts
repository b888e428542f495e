// pnpm images end to end: both archives built twice into temporary directories are byte-identical;
// each is a valid OCI layout holding exactly the runtime (Node.js, the libraries ldd lists, the
// loader, /usr/bin/env), the app and the minimal /etc; the node image runs chrooted (netledger-node,
// the static client, install-cni onto a "host" directory), the kube-controllers image as 65532;
// both load into podman and import into a throwaway containerd under the names the manifests use,
// and run there. Needs root, `pnpm build`, containerd, podman, runc.
import {
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  realpathSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTempDir } from '@netledger/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildImages } from './build-images.js';
import type { BuiltImage } from './build-images.js';
import {
  NETLEDGER_IMAGES,
  fullImageReference,
  imageReference,
  imageTag,
} from './netledger-images.js';
import { sharedLibrariesOf } from './shared-libraries.js';
import { readOciLayout, unpackLayers } from './test-oci-layout.js';
import {
  createPodman,
  podmanUlimits,
  requireRuntimes,
  runChrooted,
  startContainerd,
} from './test-runtimes.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const [NODE_IMAGE, CONTROLLERS_IMAGE] = NETLEDGER_IMAGES;
const NODE_VERSION = imageTag(ROOT, NODE_IMAGE);
const CONTROLLERS_VERSION = imageTag(ROOT, CONTROLLERS_IMAGE);

let tmp: { path: string; remove: () => Promise<void> };
let built: BuiltImage[];
/** Each image's root file system, unpacked as a runtime would. */
const rootfs = (i: number): string => join(tmp.path, `rootfs-${i}`);

beforeAll(async () => {
  requireRuntimes();
  tmp = await createTempDir('netledger-images-');
  built = buildImages({ root: ROOT, outDir: join(tmp.path, 'a') });
  built.forEach((b, i) => {
    const layout = readOciLayout(b.path, join(tmp.path, `layout-${i}`));
    unpackLayers(layout.layers, rootfs(i));
  });
}, 180_000);
afterAll(async () => {
  await tmp?.remove();
});

/** The files, links and directories under `dir`, relative to it (not the chroots' proc/). */
function tree(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[])
    .filter((p) => p !== 'proc' && !p.startsWith('proc/'))
    .map((p) => (lstatSync(join(dir, p)).isDirectory() ? `${p}/` : p))
    .sort();
}

/** Each directory above `path` (relative), with a trailing slash. */
function ancestors(path: string): string[] {
  const out: string[] = [];
  for (let d = dirname(path); d !== '.'; d = dirname(d)) out.push(`${d}/`);
  return out;
}

describe('pnpm images', () => {
  it('writes the pinned archives, byte-identical when built again from the same inputs', () => {
    expect(built.map((b) => b.path)).toEqual([
      join(tmp.path, 'a', 'netledger-node.oci.tar'),
      join(tmp.path, 'a', 'netledger-kube-controllers.oci.tar'),
    ]);
    const again = buildImages({ root: ROOT, outDir: join(tmp.path, 'b') });
    expect(again.map((b) => b.manifestDigest)).toEqual(built.map((b) => b.manifestDigest));
    again.forEach((b, i) => {
      expect(readFileSync(b.path).equals(readFileSync(built[i]!.path))).toBe(true);
    });
  }, 120_000);

  it('names, configs and the shared runtime layer: root for the agent, 65532 for the controllers', () => {
    const [node, controllers] = built.map((b, i) =>
      readOciLayout(b.path, join(tmp.path, `check-${i}`)),
    );
    expect(node!.index.manifests[0]!.annotations).toEqual({
      'io.containerd.image.name': `docker.io/netledger/netledger-node:${NODE_VERSION}`,
      'org.opencontainers.image.ref.name': NODE_VERSION,
    });
    expect(controllers!.index.manifests[0]!.annotations).toEqual({
      'io.containerd.image.name': `docker.io/netledger/netledger-kube-controllers:${CONTROLLERS_VERSION}`,
      'org.opencontainers.image.ref.name': CONTROLLERS_VERSION,
    });
    expect(node!.config.config).toMatchObject({
      User: '0:0',
      Entrypoint: ['/usr/local/bin/netledger-node'],
      Labels: { 'org.opencontainers.image.version': NODE_VERSION },
    });
    expect(controllers!.config.config).toMatchObject({
      User: '65532:65532',
      Entrypoint: ['/usr/local/bin/netledger-kube-controllers'],
    });
    // One runtime layer for both: a node pulls (or imports) it once.
    expect(controllers!.manifest.layers[0]).toEqual(node!.manifest.layers[0]);
    expect(imageReference(ROOT, NODE_IMAGE)).toBe(`netledger/netledger-node:${NODE_VERSION}`);
    expect(built[0]!.reference).toBe(fullImageReference(ROOT, NODE_IMAGE));
  });

  it('holds exactly Node.js, the libraries and loader ldd lists, /usr/bin/env, the apps and /etc', () => {
    const node = realpathSync(process.execPath);
    const libraries = [
      ...new Set([...sharedLibrariesOf(node), ...sharedLibrariesOf('/usr/bin/env')]),
    ].map((p) => p.slice(1));
    const runtime = new Set([
      'etc/',
      'etc/group',
      'etc/nsswitch.conf',
      'etc/passwd',
      'home/',
      'home/nonroot/',
      'root/',
      'tmp/',
      'usr/',
      'usr/bin/',
      'usr/bin/env',
      'usr/local/',
      'usr/local/bin/',
      'usr/local/bin/node',
      ...libraries,
      ...libraries.flatMap(ancestors),
    ]);
    const fallback = (
      readdirSync(join(ROOT, 'apps/cni-plugin/dist/netledger-ipam.d'), {
        recursive: true,
      }) as string[]
    )
      .filter((f) => !f.endsWith('.map'))
      .map((f) => `usr/local/bin/netledger-ipam.d/${f}${f === 'chunks' ? '/' : ''}`);
    expect(tree(rootfs(0))).toEqual(
      [
        ...runtime,
        'usr/local/bin/netledger-node',
        'usr/local/bin/netledger-ipam',
        'usr/local/bin/netledger-ipam.d/',
        'usr/local/bin/netledger-ipam.d/node',
        ...fallback,
      ].sort(),
    );
    expect(tree(rootfs(1))).toEqual(
      [...runtime, 'usr/local/bin/netledger-kube-controllers'].sort(),
    );
    expect(readFileSync(join(rootfs(0), 'usr/local/bin/node')).equals(readFileSync(node))).toBe(
      true,
    );
    expect(readFileSync(join(rootfs(0), 'etc/passwd'), 'utf8')).toContain('nonroot:x:65532:65532:');
    expect(lstatSync(join(rootfs(0), 'tmp')).mode & 0o7777).toBe(0o1777);
  });

  it('the node image runs chrooted: netledger-node, the static client and install-cni', async () => {
    const version = await runChrooted(rootfs(0), '0:0', [
      '/usr/local/bin/netledger-node',
      '--version',
    ]);
    expect(version).toMatchObject({ status: 0, stdout: `netledger-node ${NODE_VERSION}\n` });
    const client = await runChrooted(rootfs(0), '0:0', ['/usr/local/bin/netledger-ipam', '-v']);
    expect(client.status).toBe(0);
    expect(client.stdout).toContain('static client');
    const install = await runChrooted(
      rootfs(0),
      '0:0',
      [
        '/usr/local/bin/netledger-ipam',
        'install-cni',
        '--bin-dir',
        '/tmp/host/bin',
        '--conf-dir',
        '/tmp/host/net.d',
      ],
      { NETLEDGER_IPV4_POOLS: '10.89.0.0/24', NODENAME: 'worker-1', DATASTORE_TYPE: 'kubernetes' },
    );
    expect(install.stderr).toBe('');
    expect(install.stdout).toBe(
      'written   /tmp/host/bin/netledger-ipam\nwritten   /tmp/host/net.d/10-netledger.conflist\nwritten   /tmp/host/net.d/.netledger-install.record\n',
    );
    expect(
      readFileSync(join(rootfs(0), 'tmp/host/bin/netledger-ipam')).equals(
        readFileSync(join(rootfs(0), 'usr/local/bin/netledger-ipam')),
      ),
    ).toBe(true);
  });

  it('the kube-controllers image runs chrooted as nonroot (65532)', async () => {
    const version = await runChrooted(rootfs(1), '65532:65532', [
      '/usr/local/bin/netledger-kube-controllers',
      '--version',
    ]);
    expect(version).toMatchObject({
      status: 0,
      stdout: `netledger-kube-controllers ${CONTROLLERS_VERSION}\n`,
    });
    const whoami = await runChrooted(rootfs(1), '65532:65532', [
      '/usr/local/bin/node',
      '-e',
      'const u = require("os").userInfo(); console.log(u.uid, u.username, u.homedir)',
    ]);
    expect(whoami.stdout).toBe('65532 nonroot /home/nonroot\n');
  });

  it("podman loads both under the manifests' names and runs them", async () => {
    const podman = createPodman(join(tmp.path, 'podman'));
    for (const b of built) {
      const load = await podman.run(['load', '-i', b.path]);
      expect(load.stdout).toContain(`Loaded image: ${b.reference}`);
    }
    const images = await podman.run([
      'images',
      '--digests',
      '--format',
      '{{.Repository}}:{{.Tag}} {{.Digest}}',
    ]);
    expect(images.stdout.trim().split('\n').sort()).toEqual(
      built.map((b) => `${b.reference} ${b.manifestDigest}`).sort(),
    );
    const flags = ['run', '--rm', '--network', 'none', ...podmanUlimits()];
    const node = await podman.run([...flags, imageReference(ROOT, NODE_IMAGE), '--version']);
    expect(node).toMatchObject({ status: 0, stdout: `netledger-node ${NODE_VERSION}\n` });
    const controllers = await podman.run([
      ...flags,
      '--entrypoint',
      '/usr/local/bin/node',
      imageReference(ROOT, CONTROLLERS_IMAGE),
      '-e',
      'console.log(process.getuid())',
    ]);
    expect(controllers).toMatchObject({ status: 0, stdout: '65532\n' });
  }, 180_000);

  it('containerd imports both under their names (ctr images import) and runs install-cni as the init container does', async () => {
    const containerd = await startContainerd(join(tmp.path, 'containerd'));
    try {
      for (const b of built) {
        const imported = await containerd.ctr([
          'images',
          'import',
          '--snapshotter',
          'native',
          b.path,
        ]);
        expect(imported.stdout).toContain(`unpacking ${b.reference} (${b.manifestDigest})...done`);
      }
      const listed = await containerd.ctr(['images', 'list', '--quiet']);
      expect(listed.stdout.trim().split('\n').sort()).toEqual(built.map((b) => b.reference).sort());
      // The host's directories, as the kubelet's hostPath (DirectoryOrCreate) makes them, one
      // holding another plugin.
      const host = join(tmp.path, 'host');
      mkdirSync(join(host, 'net.d'), { recursive: true });
      mkdirSync(join(host, 'bin'));
      writeFileSync(join(host, 'bin', 'bridge'), 'another plugin\n');
      const run = (image: BuiltImage, id: string, args: string[], extra: string[] = []) =>
        containerd.ctr([
          'run',
          '--rm',
          '--snapshotter',
          'native',
          ...extra,
          image.reference,
          id,
          ...args,
        ]);
      const node = await run(built[0]!, 'nl-version', [
        '/usr/local/bin/netledger-node',
        '--version',
      ]);
      expect(node).toMatchObject({ status: 0, stdout: `netledger-node ${NODE_VERSION}\n` });
      const install = await run(
        built[0]!,
        'nl-install-cni',
        ['/usr/local/bin/netledger-ipam', 'install-cni'],
        [
          '--mount',
          `type=bind,src=${join(host, 'bin')},dst=/opt/cni/bin,options=rbind:rw`,
          '--mount',
          `type=bind,src=${join(host, 'net.d')},dst=/etc/cni/net.d,options=rbind:rw`,
          '--env',
          'NETLEDGER_IPV4_POOLS=10.89.0.0/24',
          '--env',
          'DATASTORE_TYPE=kubernetes',
        ],
      );
      expect(install.stderr).toBe('');
      expect(install.status).toBe(0);
      expect(tree(host)).toEqual([
        'bin/',
        'bin/bridge',
        'bin/netledger-ipam',
        'net.d/',
        'net.d/.netledger-install.record',
        'net.d/10-netledger.conflist',
      ]);
      expect(readFileSync(join(host, 'bin', 'bridge'), 'utf8')).toBe('another plugin\n');
      const controllers = await run(built[1]!, 'nl-kc-version', [
        '/usr/local/bin/netledger-kube-controllers',
        '--version',
      ]);
      expect(controllers).toMatchObject({
        status: 0,
        stdout: `netledger-kube-controllers ${CONTROLLERS_VERSION}\n`,
      });
    } finally {
      await containerd.stop();
    }
  }, 180_000);
});
