// KubeVirt VM address persistence, as Calico v3.32's calico-ipam does it: a virt-launcher pod
// (controller-owned by a VirtualMachineInstance) takes its addresses under a VM-scoped handle,
// `<network>.vmi.<namespace>.<vm>`, so they follow the VM across pod re-creation and live
// migration. Pure functions here; the reads are in read-vmi.ts.
import { createHash } from 'node:crypto';
import type { KubeMeta, OwnerReference } from './kube-reads.js';

/** The label KubeVirt sets on a live-migration target pod (its migration job's UID). */
export const MIGRATION_JOB_LABEL = 'kubevirt.io/migrationJobUID';

/** KubeVirt's group/version of VirtualMachineInstance and VirtualMachine. */
const KUBEVIRT_API_VERSION = 'kubevirt.io/v1';

/** Attribute keys Calico records on a VM's addresses. */
const VM_ATTRS = {
  vmiName: 'vmi-name',
  vmiUid: 'vmi-uid',
  vmUid: 'vm-uid',
  vmimUid: 'vmim-uid',
} as const;

/** The longest handle Calico's `CreateVMHandleID` makes. */
const MAX_HANDLE_LENGTH = 128;

/** What the plugin knows of a virt-launcher pod's VM, once its VMI (and VM) were read. */
export interface VmiInfo {
  readonly namespace: string;
  /** The VMI's name, which is also its VM's. */
  readonly name: string;
  readonly vmiUid: string;
  /** The owning VirtualMachine's UID, when the VMI has one. */
  readonly vmUid?: string;
  /** The migration job's UID when the pod is a live-migration target. */
  readonly migrationJobUid?: string;
  /** Whether the object whose life bounds the addresses (the VM, else the VMI) is being deleted. */
  readonly deleting: boolean;
}

/**
 * The pod's controller owner reference to a VirtualMachineInstance (`kubevirt.io/v1`), if any:
 * what makes a pod a virt-launcher pod.
 */
export function vmiOwnerOf(pod: KubeMeta): OwnerReference | undefined {
  return pod.ownerReferences.find(
    (o) =>
      o.apiVersion === KUBEVIRT_API_VERSION && o.kind === 'VirtualMachineInstance' && o.controller,
  );
}

/** The owner reference of a VMI to its VirtualMachine, if any. */
export function vmOwnerOf(vmi: KubeMeta): OwnerReference | undefined {
  return vmi.ownerReferences.find(
    (o) => o.apiVersion === KUBEVIRT_API_VERSION && o.kind === 'VirtualMachine' && o.name !== '',
  );
}

/**
 * A name-based pre-check: KubeVirt names its launcher pods `virt-launcher-<vmi>-<suffix>`, so DEL
 * reads the pod (to find its VMI owner) only for such names.
 */
export function mayBeVirtLauncher(podName: string): boolean {
  return podName.startsWith('virt-launcher-');
}

/**
 * Calico's `CreateVMHandleID`: `<network>.vmi.<namespace>.<vm>`, or, when that exceeds 128
 * characters, `<network>.vmi._` and the base64url SHA-256 of `<namespace>.<vm>` cut to fit. (Calico
 * slices the 43-character hash to fill 128 characters and panics when the prefix is short; here
 * the hash is never cut beyond its length.)
 */
export function vmHandleId(network: string, namespace: string, vm: string): string {
  const prefix = `${network}.vmi.`;
  const suffix = `${namespace}.${vm}`;
  const total = prefix.length + suffix.length;
  if (total < MAX_HANDLE_LENGTH || (total === MAX_HANDLE_LENGTH && !suffix.startsWith('_'))) {
    return prefix + suffix;
  }
  const hash = createHash('sha256').update(suffix).digest('base64url');
  return `${prefix}_${hash.slice(0, Math.max(1, MAX_HANDLE_LENGTH - 1 - prefix.length))}`;
}

/** The attributes Calico adds to a persistent VM's addresses (`vm-uid` and `vmim-uid` when known). */
export function vmAttrs(vmi: VmiInfo): Record<string, string> {
  return {
    [VM_ATTRS.vmiName]: vmi.name,
    [VM_ATTRS.vmiUid]: vmi.vmiUid,
    ...(vmi.vmUid !== undefined && { [VM_ATTRS.vmUid]: vmi.vmUid }),
    ...(vmi.migrationJobUid !== undefined && { [VM_ATTRS.vmimUid]: vmi.migrationJobUid }),
  };
}
