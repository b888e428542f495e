import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';
import { CNI_PLUGINS } from './host-local-conflist.js';

/** Where Debian's containernetworking-plugins installs the CNI plugins. */
export const DEBIAN_CNI_DIR = '/usr/lib/cni';

/** The programs a cluster runs, each with the Debian package that brings it. */
export const HOST_PROGRAMS = {
  containerd: { path: '/usr/bin/containerd', pkg: 'containerd' },
  ctr: { path: '/usr/bin/ctr', pkg: 'containerd' },
  shim: { path: '/usr/bin/containerd-shim-runc-v2', pkg: 'containerd' },
  runc: { path: '/usr/sbin/runc', pkg: 'runc' },
  busybox: { path: '/bin/busybox', pkg: 'busybox-static' },
  umount: { path: '/bin/umount', pkg: 'mount' },
  openssl: { path: '/usr/bin/openssl', pkg: 'openssl' },
  ...Object.fromEntries(
    CNI_PLUGINS.map((p) => [
      p,
      { path: join(DEBIAN_CNI_DIR, p), pkg: 'containernetworking-plugins' },
    ]),
  ),
} as const satisfies Record<string, { path: string; pkg: string }>;

/**
 * The programs of {@link HOST_PROGRAMS} that are not executable here, each as
 * `<path> (apt-get install -y <package>)`.
 */
export function missingHostPrograms(
  programs: Readonly<Record<string, { path: string; pkg: string }>> = HOST_PROGRAMS,
): string[] {
  return Object.values(programs).flatMap(({ path, pkg }) => {
    try {
      accessSync(path, constants.X_OK);
      return [];
    } catch {
      return [`${path} (apt-get install -y ${pkg})`];
    }
  });
}
