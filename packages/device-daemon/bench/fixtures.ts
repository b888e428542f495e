import type { BridgeDriver } from '../src/netlink-bridge-driver.js';
import type { NatDriver } from '../src/nat-driver.js';
import type { RevisionFiles } from '../src/revision.js';

/** The benchmark revision: 4 pools (/24, two with NAT) and 250 pool containers spread over them. */
export function benchRevision(containers = 250): RevisionFiles {
  const pools = Object.fromEntries(
    [0, 1, 2, 3].map((i) => [
      `pool${i}`,
      {
        type: 'bridge',
        bridge: `nlbr${i}`,
        subnet: `10.${60 + i}.0.0/24`,
        gateway: `10.${60 + i}.0.1`,
        nat: i % 2 === 0,
      },
    ]),
  );
  return {
    deviceJson: JSON.stringify({ network: { pools } }),
    containers: Array.from({ length: containers }, (_, i) => ({
      name: `c${String(i).padStart(3, '0')}`,
      runJson: JSON.stringify({
        name: `c${i}`,
        network: {
          mode: 'pool',
          pool: `pool${i % 4}`,
          hostname: `c${i}`,
          ...(i % 10 === 0 ? { ip: `10.${60 + (i % 4)}.0.${200 + Math.floor(i / 10)}` } : {}),
        },
      }),
      lxcConfig: 'lxc.rootfs.path = /rootfs\nlxc.namespace.keep = user net ipc\n',
    })),
  };
}

/** Host adapters that do nothing (the benchmark measures the daemon, not the kernel). */
export const NULL_BRIDGES: BridgeDriver = {
  async ensureBridge() {},
  async removeAddress() {},
  async deleteBridge() {},
  async listPorts() {
    return [];
  },
  async listRoutes() {
    return [];
  },
  close() {},
};

/** See {@link NULL_BRIDGES}. */
export const NULL_NAT: NatDriver = {
  async apply() {
    return { backend: 'nftables', warnings: [] };
  },
};
