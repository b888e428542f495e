import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { NONROOT_UID } from './image-contents.js';

/** One of netledger's images. */
export interface NetledgerImage {
  /** The archive's file name in the output directory (pinned: `dist/images/<file>`). */
  readonly file: string;
  /** Its name without registry or tag, as the manifests write it. */
  readonly repository: string;
  /** The app it runs: its package.json's version is the tag. */
  readonly app: string;
  /** `uid:gid`. */
  readonly user: string;
  readonly entrypoint: readonly string[];
  readonly title: string;
  readonly description: string;
}

/** The images `pnpm images` builds. */
export const NETLEDGER_IMAGES = [
  {
    file: 'netledger-node.oci.tar',
    repository: 'netledger/netledger-node',
    app: 'apps/node-agent',
    // The agent binds a socket only root may use and takes the host lock.
    user: '0:0',
    entrypoint: ['/usr/local/bin/netledger-node'],
    title: 'netledger-node',
    description:
      'netledger-node, the per-node IPAM agent, with netledger-ipam (the static client and its install-cni verb)',
  },
  {
    file: 'netledger-kube-controllers.oci.tar',
    repository: 'netledger/netledger-kube-controllers',
    app: 'apps/kube-controllers',
    user: `${NONROOT_UID}:${NONROOT_UID}`,
    entrypoint: ['/usr/local/bin/netledger-kube-controllers'],
    title: 'netledger-kube-controllers',
    description:
      'netledger-kube-controllers: the IPAM garbage collector and the LoadBalancer controller',
  },
] as const satisfies readonly NetledgerImage[];

/** The image's tag: its app's version (`<root>/<app>/package.json`). */
export function imageTag(root: string, image: NetledgerImage): string {
  const pkg = JSON.parse(readFileSync(join(root, image.app, 'package.json'), 'utf8')) as {
    version?: unknown;
  };
  if (typeof pkg.version !== 'string') throw new Error(`${image.app}/package.json has no version`);
  return pkg.version;
}

/** The reference the manifests use: `netledger/netledger-node:0.1.0`. */
export function imageReference(root: string, image: NetledgerImage): string {
  return `${image.repository}:${imageTag(root, image)}`;
}

/**
 * The fully qualified reference a runtime stores it under (`docker.io/` + the short one, as
 * kubelet and containerd normalise `netledger/netledger-node:0.1.0`).
 */
export function fullImageReference(root: string, image: NetledgerImage): string {
  return `docker.io/${imageReference(root, image)}`;
}
