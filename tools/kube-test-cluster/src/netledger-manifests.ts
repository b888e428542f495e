import { isAbsolute, join, relative } from 'node:path';

/** The archives `pnpm images` writes, by file name. */
const IMAGE_ARCHIVES = ['netledger-node.oci.tar', 'netledger-kube-controllers.oci.tar'] as const;

/** Where the archives are under the workspace root (or `$KUBE_TEST_CLUSTER_NETLEDGER_FROM`). */
const IMAGES_DIR = 'dist/images';

/** The kustomize overlay of the Kubernetes datastore, under the same root. */
const OVERLAY = 'deploy/overlays/kubernetes';

/** What `--cni netledger` installs, as absolute paths. */
export interface NetledgerInputs {
  /** The directory laid out like the workspace (deploy/, and dist/images/ by default). */
  readonly from: string;
  /** The OCI archives of netledger-node and netledger-kube-controllers. */
  readonly images: readonly string[];
  /** The kustomize overlay of the Kubernetes datastore (a directory). */
  readonly overlay: string;
}

/**
 * Where `--cni netledger` takes its inputs: the overlay `deploy/overlays/kubernetes` under
 * `$KUBE_TEST_CLUSTER_NETLEDGER_FROM`, else under the workspace `root`; the image archives from
 * `$KUBE_TEST_CLUSTER_NETLEDGER_IMAGES` (a directory `pnpm images --out DIR` filled), else from
 * `dist/images` under that same directory.
 */
export function netledgerInputs(env: NodeJS.ProcessEnv, root: string): NetledgerInputs {
  const from = env.KUBE_TEST_CLUSTER_NETLEDGER_FROM || root;
  const imagesDir = env.KUBE_TEST_CLUSTER_NETLEDGER_IMAGES || join(from, IMAGES_DIR);
  return {
    from,
    images: IMAGE_ARCHIVES.map((a) => join(imagesDir, a)),
    overlay: join(from, OVERLAY),
  };
}

/**
 * The inputs that `exists` does not find (an archive, or the overlay's kustomization.yaml), each
 * relative to `inputs.from` when it lies under it, else absolute.
 */
export function missingNetledgerInputs(
  inputs: NetledgerInputs,
  exists: (path: string) => boolean,
): string[] {
  const wanted = [...inputs.images, join(inputs.overlay, 'kustomization.yaml')];
  return wanted
    .filter((path) => !exists(path))
    .map((path) => {
      const rel = relative(inputs.from, path);
      return rel.startsWith('..') || isAbsolute(rel) ? path : rel;
    });
}

/** The one-paragraph refusal of `--cni netledger` without its inputs. */
export function netledgerInputsMessage(missing: readonly string[]): string {
  return (
    `--cni netledger: missing ${missing.join(', ')}. It installs netledger from the project's ` +
    `own images (\`pnpm images\` writes dist/images/netledger-node.oci.tar and ` +
    `netledger-kube-controllers.oci.tar) and its kustomize overlay for the Kubernetes datastore ` +
    `(${OVERLAY}); build them first, or use --cni host-local.`
  );
}
