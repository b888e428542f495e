import { CLUSTER_CIDR, SERVICE_CIDR } from './cluster-layout.js';

/**
 * kube-controller-manager's flags: the admin kubeconfig for everything (one identity, no
 * per-controller ServiceAccounts), no leader election, no serving port (two clusters may run at
 * once), and node IPAM on, so the node gets its Pod CIDR (the first /24 of the cluster CIDR).
 */
export function controllerManagerArgs(kubeconfig: string): string[] {
  return [
    `--kubeconfig=${kubeconfig}`,
    '--leader-elect=false',
    '--secure-port=0',
    '--use-service-account-credentials=false',
    '--allocate-node-cidrs=true',
    `--cluster-cidr=${CLUSTER_CIDR}`,
    '--node-cidr-mask-size=24',
    `--service-cluster-ip-range=${SERVICE_CIDR}`,
    '--v=1',
  ];
}

/** kube-scheduler's flags: the admin kubeconfig, no leader election, no serving port. */
export function schedulerArgs(kubeconfig: string): string[] {
  return [`--kubeconfig=${kubeconfig}`, '--leader-elect=false', '--secure-port=0', '--v=1'];
}
