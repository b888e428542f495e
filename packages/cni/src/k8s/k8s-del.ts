// DEL for a KubeVirt virt-launcher pod with VM address persistence (Calico v3.32): the VM handle's
// addresses are not released with the pod. This pod's owner attributes are cleared (under a
// precondition that they are still this pod's), and the handle is released only when the VM (or a
// VM-less VMI) is being deleted and no owner remains. Every other pod is the plain DEL.
import { isIpamError } from '@netledger/ipam-core';
import { cmdDel } from '../cmd-del.js';
import type { CommandContext } from '../command-context.js';
import type { KubeApi } from './kube-reads.js';
import { kubePaths, readMeta } from './kube-reads.js';
import { mayBeVirtLauncher, vmHandleId, vmiOwnerOf } from './kubevirt.js';
import { readVmiInfo, vmAddressPersistence, vmHandleIps } from './read-vmi.js';

const hasOwner = (attrs: Readonly<Record<string, string>> | undefined): boolean =>
  attrs !== undefined && Object.keys(attrs).length > 0;

/**
 * Whether the VM's addresses may go: its VM (or VMI without a VM) is being deleted. When the VMI
 * is already gone, the VM of the same name decides (a stopped VM keeps its addresses); with
 * neither left, they may go.
 */
async function vmGoing(
  ctx: CommandContext,
  kube: KubeApi,
  vmi: Awaited<ReturnType<typeof readVmiInfo>>,
  where: { namespace: string; name: string },
): Promise<boolean> {
  if (vmi !== undefined) return vmi.deleting;
  const vm = await readMeta(kube, kubePaths.virtualMachine(where.namespace, where.name));
  ctx.log.info(
    `VMI ${where.namespace}/${where.name} is gone; its VM ${vm === undefined ? 'too' : vm.deletionTimestamp ? 'is being deleted' : 'remains'}`,
  );
  return vm === undefined || vm.deletionTimestamp !== undefined;
}

/**
 * DEL of a Kubernetes pod. A virt-launcher pod (name `virt-launcher-*`, controller-owned by a
 * VMI) with persistence enabled: for each address of its VM handle, this pod's active or
 * alternate owner attributes are cleared with the matching precondition (a failed precondition
 * is an error: the runtime retries DEL); the handle is released only when the VM, or a VMI
 * without a VM, is being deleted and no owner is left. Any other pod, or a pod the API no longer
 * has, gets the plain DEL (both handle forms): a missing pod is never an error here.
 */
export async function cmdDelK8s(ctx: CommandContext, kube: KubeApi): Promise<void> {
  const ref = ctx.cniArgs.k8s;
  if (ref === undefined || !mayBeVirtLauncher(ref.pod)) return cmdDel(ctx);
  const pod = await readMeta(kube, kubePaths.pod(ref.namespace, ref.pod));
  const owner = pod && vmiOwnerOf(pod);
  if (pod === undefined || owner === undefined) return cmdDel(ctx);
  if (!(await vmAddressPersistence(ctx.client))) return cmdDel(ctx);
  const vmi = await readVmiInfo(kube, pod, owner, { vmMayBeGone: true });
  const handleId = vmHandleId(ctx.conf.name, ref.namespace, vmi?.name ?? owner.name);
  const podOwner = { namespace: ref.namespace, name: ref.pod };
  const ips = await vmHandleIps(ctx.client, handleId);
  for (const ip of ips) {
    const attrs = await ctx.client.getAssignmentAttributes(ip);
    const active = attrs.activeOwnerAttrs;
    const alternate = attrs.alternateOwnerAttrs;
    if (active?.pod === podOwner.name && active.namespace === podOwner.namespace) {
      await ctx.client.setOwnerAttributes(
        ip,
        handleId,
        { clearActiveOwner: true },
        { expectedActiveOwner: podOwner },
      );
    } else if (alternate?.pod === podOwner.name && alternate.namespace === podOwner.namespace) {
      await ctx.client.setOwnerAttributes(
        ip,
        handleId,
        { clearAlternateOwner: true },
        { expectedAlternateOwner: podOwner },
      );
    } else continue;
    ctx.log.info(`cleared pod ${ref.namespace}/${ref.pod} from ${ip} of ${handleId}`);
  }
  let ownersLeft = false;
  for (const ip of ips) {
    const attrs = await ctx.client.getAssignmentAttributes(ip);
    if (hasOwner(attrs.activeOwnerAttrs) || hasOwner(attrs.alternateOwnerAttrs)) {
      ownersLeft = true;
      break;
    }
  }
  const going = await vmGoing(ctx, kube, vmi, { namespace: ref.namespace, name: owner.name });
  if (!going || ownersLeft) {
    ctx.log.info(`${handleId} stays (VM being deleted: ${going}, owners left: ${ownersLeft})`);
    return;
  }
  try {
    await ctx.client.releaseByHandle(handleId);
    ctx.log.info(`released handle ${handleId}: the VM is being deleted`);
  } catch (e) {
    if (!isIpamError(e, 'DoesNotExist')) throw e;
  }
}
