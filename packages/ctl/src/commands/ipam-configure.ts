import type { IpamClient, IpamConfig } from '@netledger/ipam-core';
import { CtlError } from '../ctl-error.js';

/** The flags of `ipam configure`, as given on the command line (unset flags undefined). */
export interface ConfigureOptions {
  readonly strictAffinity?: string;
  readonly maxBlocksPerHost?: string;
  readonly kubeVirtIpPersistence?: string;
  readonly ipCooldownSeconds?: string;
}

/** Go's `strconv.ParseBool`. */
function parseGoBool(text: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(text)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(text)) return false;
  return undefined;
}

/** Go's `strconv.Atoi` for the values that matter here (an optional sign, then digits). */
function parseGoInt(text: string): number | undefined {
  if (!/^[+-]?\d+$/.test(text)) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : undefined;
}

/**
 * `ipam configure`: reads the configuration, overlays the given fields and writes it back through
 * the library, which enforces the CRD bounds and the cross-field rules (StrictAffinity and
 * AutoAllocateBlocks not both off; MaxBlocksPerHost > 0 needs StrictAffinity). Flag values are
 * checked first with calicoctl's messages; nothing is written on any error.
 */
export async function configureIpam(
  ipam: IpamClient,
  options: ConfigureOptions,
): Promise<{ text: string; data: IpamConfig }> {
  const { strictAffinity, maxBlocksPerHost, kubeVirtIpPersistence, ipCooldownSeconds } = options;
  if (
    strictAffinity === undefined &&
    maxBlocksPerHost === undefined &&
    kubeVirtIpPersistence === undefined &&
    ipCooldownSeconds === undefined
  ) {
    throw new CtlError('Usage', 'at least one configuration option must be specified');
  }
  const update: Partial<IpamConfig> = {};
  const lines: string[] = [];
  if (strictAffinity !== undefined) {
    const v = parseGoBool(strictAffinity);
    if (v === undefined) {
      throw new CtlError('InvalidInput', 'invalid value. Use true or false to set strictaffinity');
    }
    update.strictAffinity = v;
    lines.push(`Successfully set StrictAffinity to: ${v}`);
  }
  if (maxBlocksPerHost !== undefined) {
    const v = parseGoInt(maxBlocksPerHost);
    if (v === undefined) {
      throw new CtlError('InvalidInput', 'invalid value for maxblockhost. Use a valid number');
    }
    update.maxBlocksPerHost = v;
    lines.push(`Successfully set MaxBlocksPerHost to: ${v}`);
  }
  if (kubeVirtIpPersistence !== undefined) {
    if (kubeVirtIpPersistence !== 'Enabled' && kubeVirtIpPersistence !== 'Disabled') {
      throw new CtlError(
        'InvalidInput',
        'invalid value for --kubevirt-ip-persistence. Use Enabled or Disabled',
      );
    }
    update.kubeVirtVMAddressPersistence = kubeVirtIpPersistence;
    lines.push(`Successfully set KubeVirtVMAddressPersistence to: ${kubeVirtIpPersistence}`);
  }
  if (ipCooldownSeconds !== undefined) {
    const v = parseGoInt(ipCooldownSeconds);
    if (v === undefined) {
      throw new CtlError(
        'InvalidInput',
        'invalid value for --ip-cooldown-seconds. Use a valid number',
      );
    }
    update.ipCooldownSeconds = v;
    lines.push(`Successfully set IPCooldownSeconds to: ${v}`);
  }
  const next: IpamConfig = { ...(await ipam.getIpamConfig()), ...update };
  await ipam.setIpamConfig(next);
  return { text: lines.map((l) => l + '\n').join(''), data: next };
}
