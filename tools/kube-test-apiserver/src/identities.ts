/** The apps that get a token of their own, each acting as its ServiceAccount. */
export const APPS = ['cni-plugin', 'ctl', 'kube-controllers', 'node-agent'] as const;

/** One of {@link APPS}. */
export type AppName = (typeof APPS)[number];

/** The namespace of the apps' ServiceAccounts (as Calico's own components run). */
const APP_NAMESPACE = 'kube-system';

/** A user of the static token file, and the kubeconfig user and context that carry its token. */
export interface Identity {
  readonly token: string;
  readonly username: string;
  readonly uid: string;
  readonly groups: readonly string[];
  /** The kubeconfig user and context named after it. */
  readonly context: string;
}

/** The admin, one identity per app, and one per kubelet (by node name). */
export interface Identities {
  readonly admin: Identity;
  readonly apps: Readonly<Record<AppName, Identity>>;
  readonly nodes: Readonly<Record<string, Identity>>;
}

/** The kubeconfig context of the admin (the current context). */
export const ADMIN_CONTEXT = 'netledger-test-admin';

/**
 * An admin in `system:masters`; per app, the username a ServiceAccount token would carry
 * (`system:serviceaccount:kube-system:netledger-<app>` with the ServiceAccount groups), so RBAC
 * RoleBindings that name the ServiceAccount apply to the app's static token; and per node in
 * `nodes`, the kubelet's `system:node:<name>` in `system:nodes`, which the Node authorizer
 * serves. `newToken` must return a fresh unguessable token on each call.
 */
export function createIdentities(
  newToken: () => string,
  options: { readonly nodes?: readonly string[] } = {},
): Identities {
  const admin: Identity = {
    token: newToken(),
    username: 'netledger-test-admin',
    uid: 'netledger-test-admin',
    groups: ['system:masters'],
    context: ADMIN_CONTEXT,
  };
  const app = (name: AppName): Identity => ({
    token: newToken(),
    username: `system:serviceaccount:${APP_NAMESPACE}:netledger-${name}`,
    uid: `netledger-${name}`,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${APP_NAMESPACE}`],
    context: `netledger-${name}`,
  });
  const apps = Object.fromEntries(APPS.map((name) => [name, app(name)])) as Record<
    AppName,
    Identity
  >;
  const node = (name: string): Identity => ({
    token: newToken(),
    username: `system:node:${name}`,
    uid: `node-${name}`,
    groups: ['system:nodes'],
    context: `system:node:${name}`,
  });
  const nodes = Object.fromEntries((options.nodes ?? []).map((name) => [name, node(name)]));
  return { admin, apps, nodes };
}

/** The admin, then the apps in {@link APPS} order, then the nodes. */
export function everyIdentity(identities: Identities): Identity[] {
  return [
    identities.admin,
    ...APPS.map((name) => identities.apps[name]),
    ...Object.values(identities.nodes),
  ];
}

/** The `--token-auth-file` CSV: `token,user,uid,"group1,group2"` per line. */
export function renderTokenAuthFile(identities: Identities): string {
  return everyIdentity(identities)
    .map((i) => `${i.token},${i.username},${i.uid},"${i.groups.join(',')}"\n`)
    .join('');
}
