// System prerequisites of the test suite, and how to get them. Shared by run-tests and main-job.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** Debian packages the tests need, each with a file that proves it is installed. */
const SYSTEM_PACKAGES = [
  { pkg: 'etcd-server', proof: '/usr/bin/etcd' },
  { pkg: 'etcd-client', proof: '/usr/bin/etcdctl' },
  { pkg: 'nftables', proof: '/usr/sbin/nft' },
  { pkg: 'iptables', proof: '/usr/sbin/iptables' },
  { pkg: 'iproute2', proof: '/usr/bin/ip', alt: '/sbin/ip' },
  { pkg: 'iputils-ping', proof: '/usr/bin/ping', alt: '/bin/ping' },
  { pkg: 'containernetworking-plugins', proof: '/usr/lib/cni/bridge' },
  { pkg: 'e2fsprogs', proof: '/usr/bin/chattr', alt: '/bin/chattr' },
  { pkg: 'openssl', proof: '/usr/bin/openssl', alt: '/bin/openssl' },
  // The podman end-to-end test of netledger-ipam (apps/cni-plugin/test/podman.int.test.ts):
  // podman with its CNI backend and runc, and a static busybox for the containers' rootfs (the
  // dynamically linked busybox package also installs /bin/busybox: its dpkg list is the proof).
  { pkg: 'podman', proof: '/usr/bin/podman' },
  { pkg: 'runc', proof: '/usr/sbin/runc' },
  { pkg: 'busybox-static', proof: '/var/lib/dpkg/info/busybox-static.list' },
  // pnpm images' test imports the images into a throwaway containerd (tools/images), and the
  // one-node cluster of tools/kube-test-cluster runs its pods with containerd's CRI plugin (runc
  // and the CNI plugins above; its pause and test images are built from busybox-static).
  { pkg: 'containerd', proof: '/usr/bin/containerd' },
  // systemd-analyze verify checks netledger-device's unit (apps/device-daemon/test/systemd-unit);
  // its init script's test runs it under busybox sh (busybox-static, above) and dash.
  { pkg: 'systemd', proof: '/usr/bin/systemd-analyze', alt: '/bin/systemd-analyze' },
  // netledgerctl's pool map (ipam show --show-blocks -o html) is rendered and its screenshot's
  // cells counted in headless Chromium (packages/ctl/src/cli/pool-map.int.test.ts).
  { pkg: 'chromium', proof: '/usr/bin/chromium' },
];

/** Packages whose proof file is missing. */
function missingPackages() {
  return SYSTEM_PACKAGES.filter((p) => !existsSync(p.proof) && !(p.alt && existsSync(p.alt))).map(
    (p) => p.pkg,
  );
}

/** Installs missing packages with apt-get when root; otherwise says exactly what to run and exits. */
export function ensureSystemPackages() {
  const missing = missingPackages();
  if (missing.length === 0) return;
  const cmd = `apt-get update && apt-get install -y ${missing.join(' ')}`;
  if (process.getuid?.() !== 0) {
    console.error(
      `Missing system packages: ${missing.join(', ')}.\nRun as root:\n  ${cmd}\nthen run this command again.`,
    );
    process.exit(1);
  }
  console.log(`Installing system packages: ${missing.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '--no-install-recommends', ...missing], {
    stdio: 'inherit',
    env,
  });
}

const PNPM_VERSION = '12.4.2';

/**
 * Makes the pinned pnpm the `pnpm` on PATH for this process and every child (turbo looks the
 * package manager up on PATH): the one already on PATH if it is the pinned version, else the pinned
 * version installed once with npm under `.netledger/tools/` in the checkout.
 */
export function ensurePnpm(root) {
  const onPath = spawnSync('pnpm', ['--version'], { encoding: 'utf8' });
  if (onPath.status === 0 && onPath.stdout.trim() === PNPM_VERSION) return;
  const prefix = join(root, '.netledger', 'tools', `pnpm-${PNPM_VERSION}`);
  const bin = join(prefix, 'bin');
  if (!existsSync(join(bin, 'pnpm'))) {
    console.log(`Installing pnpm ${PNPM_VERSION} into ${prefix}`);
    const status = run('npm', [
      'install',
      '--global',
      '--prefix',
      prefix,
      '--no-audit',
      '--no-fund',
      `pnpm@${PNPM_VERSION}`,
    ]);
    if (status !== 0) {
      console.error(`npm could not install pnpm@${PNPM_VERSION} (exit ${status})`);
      process.exit(1);
    }
  }
  process.env.PATH = `${bin}${delimiter}${process.env.PATH ?? ''}`;
}

/** Runs a command with inherited output; returns its exit status. */
export function run(cmd, args, options = {}) {
  console.log(`\n$ ${[cmd, ...args].join(' ')}`);
  const r = spawnSync(cmd, args, { stdio: 'inherit', ...options });
  return r.status ?? 1;
}

/**
 * Builds the Kubernetes binaries the tests run (tools/kube-test-apiserver: kube-apiserver and
 * kubectl, and kubelet, kube-controller-manager, kube-scheduler and crictl for
 * tools/kube-test-cluster), unless they are already cached outside the checkout or
 * KUBE_APISERVER names a kube-apiserver (then kube-test-cluster builds the others when it first
 * runs): once, before the tests, so no test waits minutes for them. Needs `pnpm build` first (it
 * runs bin/kube-test-apiserver). Returns the exit status; without a Go toolchain the tool says
 * what to install.
 */
export function ensureKubeApiserver(root) {
  return run(process.execPath, [join(root, 'bin', 'kube-test-apiserver'), '--build']);
}
