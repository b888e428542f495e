import { dirname } from 'node:path/posix';
import type { TarEntry } from './tar-archive.js';

/** The unprivileged user (and group) of the images, as distroless names it. */
export const NONROOT_UID = 65532;

/** Where the executables go; the PATH of the images starts there. */
export const BIN = 'usr/local/bin';

/** A file taken from this machine, at its path in the image (absolute, as ldd prints it). */
export interface HostFile {
  readonly path: string;
  readonly content: Buffer;
}

const file = (path: string, content: Buffer | string, mode = 0o644): TarEntry => ({
  kind: 'file',
  path,
  mode,
  content: typeof content === 'string' ? Buffer.from(content) : content,
});

/**
 * What every image has besides its runtime: root and the non-root user in /etc/passwd and
 * /etc/group (no login shell: there is none), name lookups from /etc/hosts before DNS, /tmp
 * (1777), root's home (0700) and the non-root user's (owned by it).
 */
export function baseEntries(): TarEntry[] {
  return [
    file(
      'etc/passwd',
      `root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:${NONROOT_UID}:${NONROOT_UID}:nonroot:/home/nonroot:/sbin/nologin\n`,
    ),
    file('etc/group', `root:x:0:\nnonroot:x:${NONROOT_UID}:\n`),
    file('etc/nsswitch.conf', 'hosts: files dns\n'),
    { kind: 'dir', path: 'tmp', mode: 0o1777 },
    { kind: 'dir', path: 'root', mode: 0o700 },
    { kind: 'dir', path: 'home/nonroot', mode: 0o755, owner: NONROOT_UID },
  ];
}

/**
 * The Node.js runtime: the binary at /usr/local/bin/node, /usr/bin/env (the bundles' shebang is
 * `#!/usr/bin/env node`), and the shared libraries and loader they need, each at the path ldd
 * gave (regular files: the loader path the binaries name, e.g. /lib64/ld-linux-x86-64.so.2, and
 * the libraries where the loader looks for them).
 */
export function runtimeEntries(r: {
  readonly node: Buffer;
  readonly env: Buffer;
  readonly libraries: readonly HostFile[];
}): TarEntry[] {
  return [
    file(`${BIN}/node`, r.node, 0o755),
    file('usr/bin/env', r.env, 0o755),
    ...r.libraries.map((l) => file(l.path.replace(/^\/+/, ''), l.content, 0o755)),
  ];
}

/**
 * The node agent's files: /usr/local/bin/netledger-node, the static client beside it (the agent's
 * host-lock helper, and what `install-cni` copies onto the host), and the client's Node.js
 * fallback in netledger-ipam.d/ (the install verbs run there), its `node` link to the image's
 * Node.js.
 */
export function nodeAgentEntries(a: {
  readonly agent: Buffer;
  readonly client: Buffer;
  /** The fallback bundle's files, relative to netledger-ipam.d/. */
  readonly fallback: readonly HostFile[];
}): TarEntry[] {
  return [
    file(`${BIN}/netledger-node`, a.agent, 0o755),
    file(`${BIN}/netledger-ipam`, a.client, 0o755),
    ...a.fallback.map((f) => file(`${BIN}/netledger-ipam.d/${f.path}`, f.content)),
    { kind: 'symlink', path: `${BIN}/netledger-ipam.d/node`, target: `/${BIN}/node` },
  ];
}

/** netledger-kube-controllers' one file. */
export function kubeControllersEntries(bundle: Buffer): TarEntry[] {
  return [file(`${BIN}/netledger-kube-controllers`, bundle, 0o755)];
}

/** `entries` with a directory entry (0755, root's) for each parent none of them gives. */
export function withParents(entries: readonly TarEntry[]): TarEntry[] {
  const have = new Set(entries.map((e) => e.path));
  const parents: TarEntry[] = [];
  for (const e of entries) {
    for (let d = dirname(e.path); d !== '.' && !have.has(d); d = dirname(d)) {
      have.add(d);
      parents.push({ kind: 'dir', path: d, mode: 0o755 });
    }
  }
  return [...entries, ...parents];
}
