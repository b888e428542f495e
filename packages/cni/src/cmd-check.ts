import { isIpamError } from '@netledger/ipam-core';
import { CniError, CniErrorCode } from './cni-error.js';
import type { CommandContext } from './command-context.js';
import { handleIdFor } from './workload-identity.js';

/**
 * CHECK: the container's handle must hold addresses and, when the runtime passes `prevResult`,
 * exactly the addresses it names. Fails `Internal` (999, as host-local's "failed to find
 * address") otherwise. calico-ipam has no CHECK at all; this is netledger's own.
 */
export async function cmdCheck(ctx: CommandContext): Promise<void> {
  const handleId = ctx.workload?.handleId ?? handleIdFor(ctx.conf.name, ctx.request.containerId);
  let held: string[] = [];
  try {
    held = await ctx.client.ipsByHandle(handleId);
  } catch (e) {
    if (!isIpamError(e, 'DoesNotExist')) throw e;
  }
  if (held.length === 0) {
    throw new CniError(
      CniErrorCode.Internal,
      `netledger-ipam: no addresses are allocated to ${handleId}`,
    );
  }
  const prev = ctx.conf.prevResultIps;
  if (prev === undefined) return;
  const missing = prev.filter((ip) => !held.includes(ip));
  const extra = held.filter((ip) => !prev.includes(ip));
  if (missing.length > 0 || extra.length > 0) {
    throw new CniError(
      CniErrorCode.Internal,
      `netledger-ipam: ${handleId} holds [${held.join(' ')}] but prevResult names [${prev.join(' ')}]`,
    );
  }
}
