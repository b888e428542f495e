import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { KubeTestClusterError } from './kube-test-cluster-error.js';

/**
 * The node's name, which is also its address: kubelet refuses a loopback `--node-ip`, but takes
 * an IP given as its hostname override as the node's InternalIP, so the API server reaches the
 * kubelet (exec, logs) on loopback. kube-test-apiserver gives the kubelet the identity
 * `system:node:<name>`.
 */
const NODE_NAME = '127.0.0.1';

/** The Pod CIDR the node gets (kube-controller-manager allocates it) and host-local hands out. */
export const POD_CIDR = '10.244.0.0/24';
/** The cluster CIDR kube-controller-manager allocates node Pod CIDRs from. */
export const CLUSTER_CIDR = '10.244.0.0/16';
/** kube-test-apiserver's Service range (it is fixed there). */
export const SERVICE_CIDR = '10.96.0.0/12';

/** Every path a cluster in `dir` uses, all under it except the cgroup it makes for its pods. */
export interface ClusterLayout {
  readonly dir: string;
  /** What `up` started and changed; `down` reads it. Its presence marks a cluster directory. */
  readonly stateFile: string;
  /** The admin kubeconfig, written last by `up`. */
  readonly kubeconfig: string;
  readonly logDir: string;
  readonly apiserver: {
    readonly dir: string;
    readonly kubeconfig: string;
    readonly tokens: string;
    /** kube-test-apiserver's TMPDIR: its certificates and etcd's data live there. */
    readonly tmp: string;
  };
  readonly containerd: {
    readonly dir: string;
    readonly config: string;
    readonly root: string;
    readonly state: string;
    readonly socket: string;
    readonly opt: string;
    readonly runcRoot: string;
    /** crictl's config: `crictl --config <it> pods` talks to this containerd. */
    readonly crictlConfig: string;
  };
  readonly cni: {
    readonly binDir: string;
    readonly confDir: string;
    readonly hostLocalDataDir: string;
  };
  readonly kubelet: {
    readonly rootDir: string;
    readonly config: string;
    readonly kubeconfig: string;
    readonly certDir: string;
    readonly podLogsDir: string;
    readonly volumePluginDir: string;
    readonly resolvConf: string;
  };
  readonly imageDir: string;
  /** Where netledger's hostPath volumes land (`DIR/host/<path>`), see netledger-install.ts. */
  readonly hostDir: string;
  /**
   * kubelet's `cgroupRoot`, made in every cgroup hierarchy: `/kube-test-cluster-<hash of dir>`,
   * so two clusters never share one and `down` removes exactly its own.
   */
  readonly cgroupRoot: string;
  readonly nodeName: string;
}

/** The longest path a unix socket may have on Linux (sun_path is 108 bytes with its NUL). */
const MAX_SOCKET_PATH = 107;

/**
 * The layout of a cluster in the absolute directory `dir`. Throws USAGE when containerd's
 * sockets would not fit in a unix socket path (a shorter DIR is needed).
 */
export function clusterLayout(dir: string): ClusterLayout {
  const containerd = join(dir, 'containerd');
  const socket = join(containerd, 'containerd.sock');
  // containerd also listens on `<socket>.ttrpc`, the longest of its paths.
  if (Buffer.byteLength(`${socket}.ttrpc`) > MAX_SOCKET_PATH) {
    throw new KubeTestClusterError(
      'USAGE',
      `--dir ${dir}: too long for containerd's socket ${socket}.ttrpc (at most ` +
        `${MAX_SOCKET_PATH} bytes for a unix socket): choose a shorter directory`,
    );
  }
  const kubelet = join(dir, 'kubelet');
  const apiserver = join(dir, 'apiserver');
  const cni = join(dir, 'cni');
  const hash = createHash('sha256').update(dir).digest('hex').slice(0, 12);
  return {
    dir,
    stateFile: join(dir, 'cluster.json'),
    kubeconfig: join(dir, 'kubeconfig'),
    logDir: join(dir, 'logs'),
    apiserver: {
      dir: apiserver,
      kubeconfig: join(apiserver, 'admin.kubeconfig'),
      tokens: join(apiserver, 'admin.kubeconfig.tokens.json'),
      tmp: join(apiserver, 'tmp'),
    },
    containerd: {
      dir: containerd,
      config: join(containerd, 'config.toml'),
      root: join(containerd, 'root'),
      state: join(containerd, 'state'),
      socket,
      opt: join(containerd, 'opt'),
      runcRoot: join(containerd, 'runc'),
      crictlConfig: join(containerd, 'crictl.yaml'),
    },
    cni: {
      binDir: join(cni, 'bin'),
      confDir: join(cni, 'net.d'),
      hostLocalDataDir: join(cni, 'host-local'),
    },
    kubelet: {
      rootDir: kubelet,
      config: join(kubelet, 'config.json'),
      kubeconfig: join(kubelet, 'kubeconfig'),
      certDir: join(kubelet, 'pki'),
      podLogsDir: join(dir, 'pod-logs'),
      volumePluginDir: join(kubelet, 'volume-plugins'),
      resolvConf: join(kubelet, 'resolv.conf'),
    },
    imageDir: join(dir, 'images'),
    hostDir: join(dir, 'host'),
    cgroupRoot: `/kube-test-cluster-${hash}`,
    nodeName: NODE_NAME,
  };
}
