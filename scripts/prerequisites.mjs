// System prerequisites of the test suite, and how to get them. Shared by run-tests and main-job.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** Debian packages the tests need, each with a file that proves it is installed. */
export const SYSTEM_PACKAGES = [
  { pkg: 'etcd-server', proof: '/usr/bin/etcd' },
  { pkg: 'etcd-client', proof: '/usr/bin/etcdctl' },
  { pkg: 'nftables', proof: '/usr/sbin/nft' },
  { pkg: 'iptables', proof: '/usr/sbin/iptables' },
  { pkg: 'iproute2', proof: '/usr/bin/ip', alt: '/sbin/ip' },
  { pkg: 'iputils-ping', proof: '/usr/bin/ping', alt: '/bin/ping' },
  { pkg: 'containernetworking-plugins', proof: '/usr/lib/cni/bridge' },
  { pkg: 'e2fsprogs', proof: '/usr/bin/chattr', alt: '/bin/chattr' },
  { pkg: 'openssl', proof: '/usr/bin/openssl', alt: '/bin/openssl' },
];

/** Packages whose proof file is missing. */
export function missingPackages() {
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

/** The command that runs pnpm: the installed one if it is the pinned version, else npx. */
export function pnpmCommand() {
  const r = spawnSync('pnpm', ['--version'], { encoding: 'utf8' });
  if (r.status === 0 && r.stdout.trim() === '12.4.2') return ['pnpm'];
  return ['npx', '-y', 'pnpm@12.4.2'];
}

/** Runs a command with inherited output; returns its exit status. */
export function run(cmd, args, options = {}) {
  console.log(`\n$ ${[cmd, ...args].join(' ')}`);
  const r = spawnSync(cmd, args, { stdio: 'inherit', ...options });
  return r.status ?? 1;
}
