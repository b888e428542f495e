import { execFile } from 'node:child_process';
import { open, chmod, copyFile, mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { KubeTestClusterError } from './kube-test-cluster-error.js';
import { OCI_LAYOUT, ociArchitecture, ociImage, ociIndex } from './oci-image.js';
import type { Blob } from './oci-image.js';
import { isStaticElf } from './static-elf.js';

const run = promisify(execFile);

/** containerd's sandbox ("pause") image, built locally: no registry is reachable. */
export const PAUSE_IMAGE = 'kube-test-cluster.local/pause:1';
/** The test image: busybox with its applets (sh, ping, ip, sleep, ...) on PATH. */
export const BUSYBOX_IMAGE = 'kube-test-cluster.local/busybox:1';

/**
 * What the pause container runs, as Kubernetes' pause does: sleep until SIGINT or SIGTERM, then
 * exit 0; as PID 1 of the pod it also reaps (ash's `wait` reaps every child, adopted ones too).
 */
const PAUSE_SCRIPT = "trap 'exit 0' INT TERM; while :; do sleep 2147483647 & wait $!; done";

// Same files, same bytes: sorted names, fixed times and owners, GNU format (no atime/ctime).
const DETERMINISTIC_TAR = [
  '--sort=name',
  '--mtime=@0',
  '--owner=0',
  '--group=0',
  '--numeric-owner',
  '--format=gnu',
];

/** A tar of `dir`'s contents, as bytes. */
async function tarOf(dir: string): Promise<Buffer> {
  const { stdout } = await run('tar', [...DETERMINISTIC_TAR, '-C', dir, '-cf', '-', '.'], {
    encoding: 'buffer',
    maxBuffer: 256 * 1024 * 1024,
  });
  return stdout;
}

/** Refuses a busybox that is not static: the images have no C library to load it with. */
async function checkStatic(busybox: string): Promise<void> {
  let head: Buffer;
  try {
    const file = await open(busybox, 'r');
    try {
      head = Buffer.alloc(4096);
      const { bytesRead } = await file.read(head, 0, head.length, 0);
      head = head.subarray(0, bytesRead);
    } finally {
      await file.close();
    }
  } catch (e) {
    throw new KubeTestClusterError(
      'MISSING_PREREQUISITE',
      `${busybox}: ${(e as Error).message}: apt-get install -y busybox-static`,
    );
  }
  if (!isStaticElf(head)) {
    throw new KubeTestClusterError(
      'MISSING_PREREQUISITE',
      `${busybox} is not a statically linked executable: apt-get install -y busybox-static`,
    );
  }
}

/** A root filesystem in `rootfs`: /bin/busybox, a link per applet, /tmp. */
async function busyboxRootfs(busybox: string, rootfs: string): Promise<void> {
  await mkdir(join(rootfs, 'bin'), { recursive: true });
  await mkdir(join(rootfs, 'tmp'));
  await copyFile(busybox, join(rootfs, 'bin', 'busybox'));
  await chmod(join(rootfs, 'bin', 'busybox'), 0o755);
  // Modes set explicitly: the umask must not change the layer's digest.
  await chmod(rootfs, 0o755);
  await chmod(join(rootfs, 'bin'), 0o755);
  await chmod(join(rootfs, 'tmp'), 0o1777);
  const { stdout } = await run(busybox, ['--list'], { encoding: 'utf8' });
  for (const applet of stdout.split('\n')) {
    if (applet === '' || applet === 'busybox' || applet.includes('/')) continue;
    await symlink('busybox', join(rootfs, 'bin', applet));
  }
}

/** An image `up` imports into containerd: its name and manifest digest. */
export interface BuiltImage {
  readonly name: string;
  readonly digest: string;
}

/**
 * Builds the pause and busybox images from a static busybox (Debian's busybox-static) into one
 * OCI archive `out`, the two sharing their one layer, working in `workDir`. Same busybox, same
 * digests. Throws MISSING_PREREQUISITE when busybox is missing or not static.
 */
export async function buildNodeImages(input: {
  busybox: string;
  workDir: string;
  out: string;
}): Promise<BuiltImage[]> {
  await checkStatic(input.busybox);
  const rootfs = join(input.workDir, 'rootfs');
  await busyboxRootfs(input.busybox, rootfs);
  const layer = await tarOf(rootfs);
  const architecture = ociArchitecture(process.arch);
  const env = ['PATH=/bin'];
  const pause = ociImage({
    layer,
    architecture,
    run: { Entrypoint: ['/bin/sh', '-c', PAUSE_SCRIPT], Env: env },
  });
  const busybox = ociImage({ layer, architecture, run: { Cmd: ['sh'], Env: env } });
  const layout = join(input.workDir, 'layout');
  const blobs = join(layout, 'blobs', 'sha256');
  await mkdir(blobs, { recursive: true });
  const all: Blob[] = [pause.layer, pause.config, pause.manifest, busybox.config, busybox.manifest];
  for (const b of all) {
    await writeFile(join(blobs, b.descriptor.digest.slice('sha256:'.length)), b.bytes);
  }
  const images = [
    { name: PAUSE_IMAGE, manifest: pause.manifest.descriptor },
    { name: BUSYBOX_IMAGE, manifest: busybox.manifest.descriptor },
  ];
  await writeFile(join(layout, 'oci-layout'), OCI_LAYOUT);
  await writeFile(join(layout, 'index.json'), ociIndex(images));
  await writeFile(input.out, await tarOf(layout));
  return images.map((i) => ({ name: i.name, digest: i.manifest.digest }));
}
