import type { ApiserverCertificates } from './certificates.js';

/** The ServiceAccount issuer (and so the default API audience) of the test API server. */
const SERVICE_ACCOUNT_ISSUER = 'https://kubernetes.default.svc.cluster.local';

/** The Service ClusterIP range (the `kubernetes` Service gets its first address). */
const SERVICE_CLUSTER_IP_RANGE = '10.96.0.0/12';

/** What {@link apiserverArgs} needs. */
export interface ApiserverArgsInput {
  readonly host: string;
  readonly port: number;
  readonly etcdUrl: string;
  readonly certificates: ApiserverCertificates;
  readonly tokenAuthFile: string;
  /** A kube-controller-manager runs beside it (kube-test-cluster): admission may wait for it. */
  readonly withControllerManager?: boolean;
}

/**
 * kube-apiserver's flags. Authentication by static tokens (and ServiceAccount tokens signed by
 * the generated key), authorization by the Node authorizer (for a kubelet's `system:node:<name>`,
 * see kube-test-cluster) and RBAC. Unless a kube-controller-manager runs beside it, the
 * admission plugins that wait for a controller's work are off: ServiceAccount (it refuses every
 * Pod until the serviceaccount controller has made the namespace's `default` ServiceAccount).
 * The endpoint reconciler is off too: it would write the loopback listen address into the
 * `kubernetes` Endpoints, which validation refuses, on every resync.
 */
export function apiserverArgs(input: ApiserverArgsInput): string[] {
  const c = input.certificates;
  return [
    `--etcd-servers=${input.etcdUrl}`,
    `--bind-address=${input.host}`,
    `--secure-port=${input.port}`,
    `--tls-cert-file=${c.servingCertFile}`,
    `--tls-private-key-file=${c.servingKeyFile}`,
    `--token-auth-file=${input.tokenAuthFile}`,
    '--authorization-mode=Node,RBAC',
    `--service-account-issuer=${SERVICE_ACCOUNT_ISSUER}`,
    `--service-account-key-file=${c.serviceAccountPublicKeyFile}`,
    `--service-account-signing-key-file=${c.serviceAccountKeyFile}`,
    `--service-cluster-ip-range=${SERVICE_CLUSTER_IP_RANGE}`,
    ...(input.withControllerManager ? [] : ['--disable-admission-plugins=ServiceAccount']),
    '--endpoint-reconciler-type=none',
    '--profiling=false',
  ];
}
