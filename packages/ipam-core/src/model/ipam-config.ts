/** `Enabled` keeps KubeVirt VM addresses across VM restarts and migrations. */
export type VmAddressPersistence = 'Enabled' | 'Disabled';

/**
 * The stored IPAM configuration (`/calico/ipam/v2/config`). Calico writes every field with
 * `omitempty`, so an absent field reads as false/0 here; defaults for a missing object are the
 * client's business, not the store's.
 */
export interface IpamConfigValue {
  readonly strictAffinity: boolean;
  readonly autoAllocateBlocks: boolean;
  readonly maxBlocksPerHost: number;
  readonly kubeVirtVMAddressPersistence?: VmAddressPersistence;
  readonly ipCooldownSeconds: number;
}
