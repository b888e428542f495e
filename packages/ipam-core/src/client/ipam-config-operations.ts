import { withCasRetry } from '../cas-retry.js';
import type { IpamConfig } from '../config/ipam-config.js';
import { ipamConfigToStored, validateIpamConfig } from '../config/ipam-config.js';
import { IpamError, isIpamError } from '../errors.js';
import type { IpamContext } from './ipam-context.js';
import { loadConfig } from './ipam-reads.js';

const FIELDS: readonly (keyof IpamConfig)[] = [
  'strictAffinity',
  'autoAllocateBlocks',
  'maxBlocksPerHost',
  'ipCooldownSeconds',
  'kubeVirtVMAddressPersistence',
];

/**
 * Stores the IPAM configuration after checking field bounds and the cross-field rules
 * (`InvalidArgument` / `ConfigConflict`); a config equal to the current one writes nothing.
 * The write is a CAS (create, or update at the revision read).
 */
export async function setIpamConfig(ctx: IpamContext, config: IpamConfig): Promise<void> {
  validateIpamConfig(config);
  const current = await loadConfig(ctx);
  if (FIELDS.every((f) => current[f] === config[f])) return;
  const value = ipamConfigToStored(config);
  await withCasRetry(async () => {
    let kv;
    try {
      kv = await ctx.ds.get({ kind: 'IPAMConfig' });
    } catch (e) {
      if (!isIpamError(e, 'DoesNotExist')) throw e;
    }
    if (kv) {
      await ctx.ds.update({ ...kv, value });
      return;
    }
    try {
      await ctx.ds.create({ key: { kind: 'IPAMConfig' }, value });
    } catch (e) {
      if (isIpamError(e, 'AlreadyExists'))
        throw new IpamError('UpdateConflict', 'IPAM config created concurrently');
      throw e;
    }
  });
}
