import { constants, existsSync } from 'node:fs';
import { access, rename, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Identities } from './identities.js';
import { KubeTestApiserverError } from './kube-test-apiserver-error.js';
import { renderKubeconfig, renderTokensFile } from './kubeconfig.js';

/** Where the kubeconfig and the tokens file go. */
export interface ClientFilePaths {
  readonly kubeconfigOut: string;
  readonly tokensOut: string;
}

/** Writes `text` to `path` through a temp file and rename, so no reader sees half of it. */
async function writeAtomically(path: string, text: string): Promise<void> {
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, text, { mode: 0o600 });
  await rename(tmp, path);
}

/** Throws USAGE naming the flag and path when a file's directory is not writable. */
export async function checkClientFilesWritable(paths: ClientFilePaths): Promise<void> {
  for (const [flag, path] of [
    ['--kubeconfig-out', paths.kubeconfigOut],
    ['--tokens-out', paths.tokensOut],
  ] as const) {
    try {
      await access(dirname(resolve(path)), constants.W_OK);
    } catch (e) {
      throw new KubeTestApiserverError(
        'USAGE',
        `${flag} ${path}: cannot write there (${(e as Error).message})`,
      );
    }
  }
}

/**
 * Writes the kubeconfig, then the tokens file (naming the pinned kubectl beside `apiserverBin` if
 * one was built), each atomically (mode 0600); resolves their absolute paths.
 */
export async function writeClientFiles(
  paths: ClientFilePaths,
  o: {
    readonly server: string;
    readonly caPem: string;
    readonly identities: Identities;
    readonly apiserverBin: string;
  },
): Promise<{ kubeconfigPath: string; tokensPath: string }> {
  const kubeconfigPath = resolve(paths.kubeconfigOut);
  const tokensPath = resolve(paths.tokensOut);
  const { server, caPem, identities } = o;
  await writeAtomically(kubeconfigPath, renderKubeconfig({ server, caPem, identities }));
  const pinnedKubectl = join(dirname(o.apiserverBin), 'kubectl');
  await writeAtomically(
    tokensPath,
    renderTokensFile({
      server,
      kubeconfig: kubeconfigPath,
      identities,
      ...(existsSync(pinnedKubectl) && { kubectl: pinnedKubectl }),
    }),
  );
  return { kubeconfigPath, tokensPath };
}
