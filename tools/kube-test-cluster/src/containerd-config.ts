import type { ClusterLayout } from './cluster-layout.js';

/** crictl's config file for the cluster's containerd (its CRI socket, a 60 s timeout). */
export function renderCrictlConfig(layout: ClusterLayout): string {
  const endpoint = `unix://${layout.containerd.socket}`;
  return `runtime-endpoint: ${endpoint}\nimage-endpoint: ${endpoint}\ntimeout: 60\n`;
}

/** A TOML basic string: JSON's escapes (\" \\ \n \uXXXX) are TOML's too. */
const q = (s: string): string => JSON.stringify(s);

/**
 * containerd 1.6's config.toml (version 2) for a cluster: its root, state, sockets, runc state
 * and the `opt` plugin's directory all under DIR (by default they are /var/lib/containerd,
 * /run/containerd and /opt/containerd); the CRI plugin with the CNI bin and config dirs under
 * DIR, network namespaces mounted under its state dir (not /var/run/netns), the locally built
 * sandbox image, and runc with the cgroupfs driver (cgroup v1 here). OOM score adjustments
 * are kept at or above containerd's own: kubelet asks -998 for every pod sandbox, and lowering
 * a score needs CAP_SYS_RESOURCE, which the machines this runs on drop from every process's
 * bounding set (runc's nsexec then fails: "failed to update /proc/self/oom_score_adj:
 * Permission denied"). The snapshotters that cannot work here (aufs, btrfs, zfs, devmapper)
 * are disabled so they log nothing.
 */
export function renderContainerdConfig(input: {
  layout: ClusterLayout;
  sandboxImage: string;
  runc: string;
}): string {
  const { containerd, cni } = input.layout;
  const cri = 'plugins."io.containerd.grpc.v1.cri"';
  return [
    'version = 2',
    `root = ${q(containerd.root)}`,
    `state = ${q(containerd.state)}`,
    'disabled_plugins = [',
    '  "io.containerd.snapshotter.v1.aufs",',
    '  "io.containerd.snapshotter.v1.btrfs",',
    '  "io.containerd.snapshotter.v1.zfs",',
    '  "io.containerd.snapshotter.v1.devmapper",',
    ']',
    '',
    '[grpc]',
    `  address = ${q(containerd.socket)}`,
    '',
    '[ttrpc]',
    `  address = ${q(`${containerd.socket}.ttrpc`)}`,
    '',
    '[metrics]',
    '  address = ""',
    '',
    '[plugins."io.containerd.internal.v1.opt"]',
    `  path = ${q(containerd.opt)}`,
    '',
    `[${cri}]`,
    `  sandbox_image = ${q(input.sandboxImage)}`,
    '  netns_mounts_under_state_dir = true',
    '  stream_server_address = "127.0.0.1"',
    '  stream_server_port = "0"',
    '  enable_selinux = false',
    // Never below containerd's own (0): no process here may lower its OOM score (see below).
    '  restrict_oom_score_adj = true',
    '',
    `[${cri}.cni]`,
    `  bin_dir = ${q(cni.binDir)}`,
    `  conf_dir = ${q(cni.confDir)}`,
    '  max_conf_num = 1',
    '',
    `[${cri}.containerd]`,
    '  snapshotter = "overlayfs"',
    '  default_runtime_name = "runc"',
    '',
    `[${cri}.containerd.runtimes.runc]`,
    '  runtime_type = "io.containerd.runc.v2"',
    '',
    `[${cri}.containerd.runtimes.runc.options]`,
    `  BinaryName = ${q(input.runc)}`,
    `  Root = ${q(containerd.runcRoot)}`,
    '  SystemdCgroup = false',
    '',
  ].join('\n');
}
