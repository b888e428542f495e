import type { ClusterLayout } from './cluster-layout.js';

/**
 * kubelet's KubeletConfiguration (v1beta1; JSON is YAML) for a standalone node on loopback. No
 * TLS bootstrap: the kubeconfig carries the node's token. It serves the API server (exec, logs)
 * on 127.0.0.1:`port` only, so it accepts anonymous requests there (the API server presents no
 * client certificate). cgroupfs driver with its pods under DIR's own cgroupRoot; containerd's CRI
 * socket and pod logs under DIR; swap tolerated; no iptables chains of its own (kube-proxy's
 * business, and they would be host-wide); eviction only at nearly full disks, since the disk is
 * shared with other work; the serializing image puller off (images are local).
 */
export function renderKubeletConfig(input: { layout: ClusterLayout; port: number }): string {
  const { layout } = input;
  const config = {
    apiVersion: 'kubelet.config.k8s.io/v1beta1',
    kind: 'KubeletConfiguration',
    address: '127.0.0.1',
    port: input.port,
    readOnlyPort: 0,
    healthzPort: 0,
    authentication: {
      anonymous: { enabled: true },
      webhook: { enabled: false },
      x509: {},
    },
    authorization: { mode: 'AlwaysAllow' },
    cgroupDriver: 'cgroupfs',
    cgroupRoot: layout.cgroupRoot,
    cgroupsPerQOS: true,
    containerRuntimeEndpoint: `unix://${layout.containerd.socket}`,
    podLogsDir: layout.kubelet.podLogsDir,
    volumePluginDir: layout.kubelet.volumePluginDir,
    resolvConf: layout.kubelet.resolvConf,
    failSwapOn: false,
    makeIPTablesUtilChains: false,
    registerNode: true,
    serializeImagePulls: false,
    evictionHard: {
      'memory.available': '100Mi',
      'nodefs.available': '1%',
      'imagefs.available': '1%',
    },
    imageGCHighThresholdPercent: 99,
    imageGCLowThresholdPercent: 98,
    maxPods: 110,
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}

/** kubelet's command line: what its config file cannot say. */
export function kubeletArgs(layout: ClusterLayout): string[] {
  return [
    `--config=${layout.kubelet.config}`,
    `--kubeconfig=${layout.kubelet.kubeconfig}`,
    `--root-dir=${layout.kubelet.rootDir}`,
    `--cert-dir=${layout.kubelet.certDir}`,
    // An IP, so also the node's InternalIP (see NODE_NAME).
    `--hostname-override=${layout.nodeName}`,
    '--v=2',
  ];
}
