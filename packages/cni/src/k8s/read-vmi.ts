// The reads behind KubeVirt persistence: the pod's VMI (checked against the owner reference's
// UID), its VM, and whether persistence is enabled in the IPAM configuration.
import type { IpamClient } from '@netledger/ipam-core';
import { isIpamError } from '@netledger/ipam-core';
import { CniError, CniErrorCode } from '../cni-error.js';
import type { KubeApi, KubeMeta, OwnerReference } from './kube-reads.js';
import { kubePaths, readMeta } from './kube-reads.js';
import type { VmiInfo } from './kubevirt.js';
import { MIGRATION_JOB_LABEL, vmOwnerOf } from './kubevirt.js';

const internal = (msg: string): CniError => new CniError(CniErrorCode.Internal, msg);

/**
 * Whether `kubeVirtVMAddressPersistence` is enabled (the default). As in Calico, a configuration
 * that cannot be read counts as enabled.
 */
export async function vmAddressPersistence(client: IpamClient): Promise<boolean> {
  try {
    return (await client.getIpamConfig()).kubeVirtVMAddressPersistence !== 'Disabled';
  } catch {
    return true;
  }
}

/** The addresses the VM's handle holds; none when the handle does not exist. */
export async function vmHandleIps(client: IpamClient, handleId: string): Promise<string[]> {
  try {
    return await client.ipsByHandle(handleId);
  } catch (e) {
    if (!isIpamError(e, 'DoesNotExist')) throw e;
    return [];
  }
}

/**
 * The VMI a virt-launcher pod belongs to, verified against the pod's owner reference, with its VM
 * when it has one; undefined when the VMI does not exist. Throws `Internal` (999) for an owner
 * reference without name or UID, a UID that does not match the VMI's, or (unless `vmMayBeGone`)
 * a VM owner that cannot be found (Calico's checks). With `vmMayBeGone` (DEL: a VM deleted in the
 * background is gone before its VMI and pods) a missing VM counts as being deleted.
 */
export async function readVmiInfo(
  api: KubeApi,
  pod: KubeMeta,
  owner: OwnerReference,
  options: { readonly vmMayBeGone?: boolean } = {},
): Promise<VmiInfo | undefined> {
  if (owner.name === '' || owner.uid === '') {
    throw internal(
      `pod ${pod.namespace}/${pod.name} has invalid VMI ownerReference: name=${JSON.stringify(owner.name)} uid=${JSON.stringify(owner.uid)}`,
    );
  }
  const vmi = await readMeta(api, kubePaths.virtualMachineInstance(pod.namespace, owner.name));
  if (vmi === undefined) return undefined;
  if (vmi.uid !== owner.uid) {
    throw internal(
      `VMI UID mismatch: pod ownerReference has ${owner.uid} but VMI resource has ${vmi.uid}`,
    );
  }
  const vmRef = vmOwnerOf(vmi);
  let vm: KubeMeta | undefined;
  let vmGone = false;
  if (vmRef !== undefined) {
    vm = await readMeta(api, kubePaths.virtualMachine(pod.namespace, vmRef.name));
    vmGone = vm === undefined;
    if (vmGone && !options.vmMayBeGone) {
      throw internal(
        `failed to get VM ${pod.namespace}/${vmRef.name} owning VMI ${owner.name}: not found`,
      );
    }
  }
  const migration = pod.labels[MIGRATION_JOB_LABEL];
  return {
    namespace: pod.namespace,
    name: vmi.name || owner.name,
    vmiUid: vmi.uid,
    ...(vm !== undefined && { vmUid: vm.uid }),
    ...(vmGone && vmRef !== undefined && { vmUid: vmRef.uid }),
    ...(migration !== undefined && migration !== '' && { migrationJobUid: migration }),
    deleting: vmGone || (vm ?? vmi).deletionTimestamp !== undefined,
  };
}
