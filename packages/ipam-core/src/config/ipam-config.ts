import { IpamError } from '../errors.js';
import type { IpamConfigValue, VmAddressPersistence } from '../model/ipam-config.js';

/** The IPAM configuration as callers see it: every field present, defaults applied. */
export interface IpamConfig {
  /** Only the affine host may assign from a block: no borrowing. */
  strictAffinity: boolean;
  /** Whether AutoAssign may claim new blocks. */
  autoAllocateBlocks: boolean;
  /** Cap on affine blocks per host and IP version; 0 means the default (20). */
  maxBlocksPerHost: number;
  /** Minimum age in seconds of a released address before it is reused (0..1200). */
  ipCooldownSeconds: number;
  /** Whether KubeVirt VM addresses survive VM restart and migration. */
  kubeVirtVMAddressPersistence: VmAddressPersistence;
}

/** The configuration in force when none is stored (never persisted by reading it). */
export const DEFAULT_IPAM_CONFIG: Readonly<IpamConfig> = Object.freeze({
  strictAffinity: false,
  autoAllocateBlocks: true,
  maxBlocksPerHost: 0,
  ipCooldownSeconds: 0,
  kubeVirtVMAddressPersistence: 'Enabled',
});

/** The block cap used when neither the request nor the configuration sets one. */
const DEFAULT_MAX_BLOCKS_PER_HOST = 20;

const MAX_BLOCKS_LIMIT = 1_000_000;
const MAX_COOLDOWN_SECONDS = 1200;

/**
 * Checks Calico's cross-field rules (from `SetIPAMConfig`): StrictAffinity and AutoAllocateBlocks
 * cannot both be off, and MaxBlocksPerHost > 0 needs StrictAffinity. Throws `ConfigConflict`.
 */
function checkIpamConfigRules(c: IpamConfig): void {
  if (!c.strictAffinity && !c.autoAllocateBlocks) {
    throw new IpamError(
      'ConfigConflict',
      "Cannot disable 'StrictAffinity' and 'AutoAllocateBlocks' at the same time",
    );
  }
  if (c.maxBlocksPerHost > 0 && !c.strictAffinity) {
    throw new IpamError('ConfigConflict', 'MaxBlocksPerHost requires StrictAffinity to be enabled');
  }
}

const isIntIn = (v: unknown, min: number, max: number): boolean =>
  Number.isInteger(v) && (v as number) >= min && (v as number) <= max;

/**
 * Validates a configuration before it is written: field bounds (the CRD's: maxBlocksPerHost
 * 0..1,000,000, ipCooldownSeconds 0..1200, persistence `Enabled`/`Disabled`, booleans) throw
 * `InvalidArgument`; then the cross-field rules throw `ConfigConflict`.
 */
export function validateIpamConfig(c: IpamConfig): void {
  const problems: string[] = [];
  if (typeof c.strictAffinity !== 'boolean') problems.push('strictAffinity must be a boolean');
  if (typeof c.autoAllocateBlocks !== 'boolean') {
    problems.push('autoAllocateBlocks must be a boolean');
  }
  if (!isIntIn(c.maxBlocksPerHost, 0, MAX_BLOCKS_LIMIT)) {
    problems.push(`maxBlocksPerHost must be an integer from 0 to ${MAX_BLOCKS_LIMIT}`);
  }
  if (!isIntIn(c.ipCooldownSeconds, 0, MAX_COOLDOWN_SECONDS)) {
    problems.push(`ipCooldownSeconds must be an integer from 0 to ${MAX_COOLDOWN_SECONDS}`);
  }
  if (
    c.kubeVirtVMAddressPersistence !== 'Enabled' &&
    c.kubeVirtVMAddressPersistence !== 'Disabled'
  ) {
    problems.push('kubeVirtVMAddressPersistence must be Enabled or Disabled');
  }
  if (problems.length > 0) {
    throw new IpamError('InvalidArgument', `invalid IPAM configuration: ${problems.join('; ')}`);
  }
  checkIpamConfigRules(c);
}

/**
 * The configuration a stored value means: an absent persistence reads as `Enabled`, the other
 * fields as stored (Calico omits false and 0). A stored value that breaks a cross-field rule (a
 * direct write that skipped `setIpamConfig`) is rejected on read with `ConfigConflict`.
 */
export function ipamConfigFromStored(value: IpamConfigValue): IpamConfig {
  const config: IpamConfig = {
    strictAffinity: value.strictAffinity,
    autoAllocateBlocks: value.autoAllocateBlocks,
    maxBlocksPerHost: value.maxBlocksPerHost,
    ipCooldownSeconds: value.ipCooldownSeconds,
    kubeVirtVMAddressPersistence:
      value.kubeVirtVMAddressPersistence ?? DEFAULT_IPAM_CONFIG.kubeVirtVMAddressPersistence,
  };
  checkIpamConfigRules(config);
  return config;
}

/** The value to store for a configuration (all fields written; the codec omits empty ones). */
export function ipamConfigToStored(c: IpamConfig): IpamConfigValue {
  return {
    strictAffinity: c.strictAffinity,
    autoAllocateBlocks: c.autoAllocateBlocks,
    maxBlocksPerHost: c.maxBlocksPerHost,
    ipCooldownSeconds: c.ipCooldownSeconds,
    kubeVirtVMAddressPersistence: c.kubeVirtVMAddressPersistence,
  };
}

/**
 * The block cap for one request (Calico's): the smaller of the request's and the global cap when
 * both are set (> 0), else whichever is set, else 20.
 */
export function effectiveMaxBlocks(requested: number | undefined, global: number): number {
  const r = requested ?? 0;
  if (r > 0 && global > 0) return Math.min(r, global);
  if (r > 0) return r;
  if (global > 0) return global;
  return DEFAULT_MAX_BLOCKS_PER_HOST;
}
