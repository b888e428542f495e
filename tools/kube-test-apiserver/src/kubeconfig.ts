import { ADMIN_CONTEXT, everyIdentity } from './identities.js';
import type { AppName, Identities, Identity } from './identities.js';

/** What {@link renderKubeconfig} needs. */
export interface KubeconfigInput {
  readonly server: string;
  readonly caPem: string;
  readonly identities: Identities;
}

// Every value is written as a JSON string, which is also a valid YAML double-quoted scalar.
const q = (s: string): string => JSON.stringify(s);

/**
 * A kubeconfig with one cluster (the CA inline as certificate-authority-data), a user and a
 * context per identity, and the admin's context current. kubectl and @kubernetes/client-node
 * both read it.
 */
export function renderKubeconfig(input: KubeconfigInput): string {
  const ids = everyIdentity(input.identities);
  const caData = Buffer.from(input.caPem).toString('base64');
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '  - name: netledger-test',
    '    cluster:',
    `      server: ${q(input.server)}`,
    `      certificate-authority-data: ${q(caData)}`,
    'users:',
    ...ids.flatMap((i) => [`  - name: ${q(i.context)}`, '    user:', `      token: ${q(i.token)}`]),
    'contexts:',
    ...ids.flatMap((i) => [
      `  - name: ${q(i.context)}`,
      '    context:',
      '      cluster: netledger-test',
      `      user: ${q(i.context)}`,
      '      namespace: default',
    ]),
    `current-context: ${q(ADMIN_CONTEXT)}`,
    'preferences: {}',
    '',
  ].join('\n');
}

/** The tokens file written beside the kubeconfig (`<kubeconfig>.tokens.json`). */
interface TokensFile {
  readonly server: string;
  readonly kubeconfig: string;
  readonly admin: Identity;
  readonly apps: Readonly<Record<AppName, Identity>>;
  /** Per node name: its kubelet's identity (only with `--node`). */
  readonly nodes: Readonly<Record<string, Identity>>;
  /** The kubectl built beside this kube-apiserver from the same pin, when there is one. */
  readonly kubectl?: string;
}

/** The JSON text of a {@link TokensFile}. */
export function renderTokensFile(input: {
  server: string;
  kubeconfig: string;
  identities: Identities;
  kubectl?: string;
}): string {
  const file: TokensFile = {
    server: input.server,
    kubeconfig: input.kubeconfig,
    admin: input.identities.admin,
    apps: input.identities.apps,
    nodes: input.identities.nodes,
    ...(input.kubectl !== undefined && { kubectl: input.kubectl }),
  };
  return `${JSON.stringify(file, null, 2)}\n`;
}
