import { CniError, CniErrorCode } from './cni-error.js';
import type { CommandContext } from './command-context.js';
import { describeAttachment, isHeldBy, readHeldAllocation } from './held-allocation.js';
import { handleIdFor } from './workload-identity.js';

/**
 * CHECK of one attachment: its handle (per interface, as ADD's) must hold addresses made for it
 * and, when the runtime passes `prevResult`, exactly the addresses it names. Fails `Internal`
 * (999, as host-local's "failed to find address") otherwise. calico-ipam has no CHECK at all;
 * this is netledger's own. A KubeVirt VM pod is checked on its VM's handle (`ctx.workload`).
 */
export async function cmdCheck(ctx: CommandContext): Promise<void> {
  const attachment = { containerId: ctx.request.containerId, ifname: ctx.request.ifname };
  // A KubeVirt VM's handle (k8s/) holds the VM's addresses, whichever pod took them.
  const vmHandle = ctx.workload?.handleId;
  const handleId =
    vmHandle ?? handleIdFor(ctx.conf.name, attachment.containerId, attachment.ifname);
  const heldAllocation = await readHeldAllocation(ctx.datastore, handleId);
  if (heldAllocation === undefined) {
    throw new CniError(
      CniErrorCode.Internal,
      `netledger-ipam: no addresses are allocated to ${handleId}`,
    );
  }
  if (vmHandle === undefined && !isHeldBy(heldAllocation, attachment)) {
    throw new CniError(
      CniErrorCode.Internal,
      `netledger-ipam: ${handleId} holds the addresses of ${describeAttachment(heldAllocation.owner)}, not of ${describeAttachment(attachment)}`,
    );
  }
  const held = heldAllocation.addresses.map((a) => a.ip);
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
