import type { ClusterLayout } from './cluster-layout.js';
import { POD_CIDR } from './cluster-layout.js';

/** The conflist's file name in DIR's CNI config dir (containerd loads the first by name). */
export const HOST_LOCAL_CONFLIST = '10-host-local.conflist';

/** The CNI plugins `up` links into DIR's CNI bin dir, from Debian's containernetworking-plugins. */
export const CNI_PLUGINS = ['ptp', 'host-local', 'loopback', 'bridge', 'portmap'] as const;

/**
 * The host-local network: `ptp` (a veth per pod, a /32 route to it on the host, as netledger's
 * default main plugin does, so the two IPAMs are compared on the same data path) with
 * `host-local` handing out the node's Pod CIDR, its reservations kept under DIR (by default
 * /var/lib/cni/networks). No IP masquerade: that would add host-wide iptables rules.
 */
export function renderHostLocalConflist(layout: ClusterLayout): string {
  const conflist = {
    cniVersion: '1.0.0',
    name: 'kube-test-host-local',
    plugins: [
      {
        type: 'ptp',
        ipMasq: false,
        ipam: {
          type: 'host-local',
          ranges: [[{ subnet: POD_CIDR }]],
          routes: [{ dst: '0.0.0.0/0' }],
          dataDir: layout.cni.hostLocalDataDir,
        },
      },
    ],
  };
  return `${JSON.stringify(conflist, null, 2)}\n`;
}
