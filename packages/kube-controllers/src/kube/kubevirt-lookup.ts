import type { VmLookup } from '@netledger/accounting';
import type { SharedInformers } from '../manager/controller.js';
import type { KubeApis } from './kube-client.js';
import { kubeStatus } from './kube-client.js';
import type { Logger } from '../logger.js';
import { errorText } from '../logger.js';
import { LIST_PAGE_SIZE } from './core-informer.js';
import type { ListPage, SlimInformer } from './slim-informer.js';
import { startSlimInformer } from './slim-informer.js';
import type { SlimMeta } from './slim-pod.js';

/** A KubeVirt VirtualMachineInstance reduced to what the GC reads. */
export interface SlimVmi {
  readonly metadata: SlimMeta;
  /** Whether a VirtualMachine owns it (a VMI of a deleted VM is then gone for good). */
  readonly ownedByVirtualMachine: boolean;
}

/** A KubeVirt VirtualMachine reduced to its name. */
export interface SlimVm {
  readonly metadata: SlimMeta;
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v !== null && typeof v === 'object' ? (v as Json) : {});
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const meta = (o: unknown): SlimMeta => {
  const m = obj(obj(o).metadata);
  const rv = str(m.resourceVersion);
  return {
    name: str(m.name),
    namespace: str(m.namespace),
    uid: str(m.uid),
    ...(rv !== '' && { resourceVersion: rv }),
  };
};

/** Reduces a VirtualMachineInstance. */
function slimVmi(o: unknown): SlimVmi {
  const owners = obj(obj(o).metadata).ownerReferences;
  return {
    metadata: meta(o),
    ownedByVirtualMachine:
      Array.isArray(owners) && owners.some((r) => obj(r).kind === 'VirtualMachine'),
  };
}

/** Reduces a VirtualMachine. */
const slimVm = (o: unknown): SlimVm => ({ metadata: meta(o) });

/**
 * Calico's `isVMAllocationValid` lookups over the VM and VMI caches: the VM `namespace/name`
 * exists; else a VMI of that name no VirtualMachine owns (a standalone VMI) exists; else gone.
 * Without KubeVirt (no caches) every answer is `kubevirtAbsent`, and while the caches are not
 * synced `error`: both keep the address.
 */
export function kubevirtLookup(
  caches: { vms: SlimInformer<SlimVm>; vmis: SlimInformer<SlimVmi> } | undefined,
): (namespace: string, name: string) => VmLookup {
  return (namespace, name) => {
    if (!caches) return 'kubevirtAbsent';
    if (!caches.vms.isSynced() || !caches.vmis.isSynced()) return 'error';
    if (caches.vms.get(name, namespace)) return 'vmExists';
    const vmi = caches.vmis.get(name, namespace);
    if (vmi && !vmi.ownedByVirtualMachine) return 'standaloneVmiExists';
    return 'notFound';
  };
}

const GROUP = 'kubevirt.io';
const VERSION = 'v1';

/**
 * Starts the VM and VMI informers (shared) when the cluster serves `kubevirt.io/v1`; undefined
 * when it does not (404) or this identity may not list them (403: logged; VM addresses are then
 * never released, which is safe).
 */
export async function startKubevirtCaches(
  kube: KubeApis,
  informers: SharedInformers,
  logger: Logger,
): Promise<{ vms: SlimInformer<SlimVm>; vmis: SlimInformer<SlimVmi> } | undefined> {
  const list = (plural: string, token?: string, limit = LIST_PAGE_SIZE) =>
    kube.custom.listClusterCustomObject({
      group: GROUP,
      version: VERSION,
      plural,
      limit,
      ...(token && { _continue: token }),
    }) as Promise<ListPage>;
  try {
    await list('virtualmachineinstances', undefined, 1);
  } catch (e) {
    const status = kubeStatus(e);
    if (status === 404) return undefined;
    logger.log('warn', 'cannot list KubeVirt VMIs: VM addresses are kept (never released)', {
      status,
      error: errorText(e),
    });
    return undefined;
  }
  const start = <T extends { metadata: SlimMeta }>(plural: string, slim: (o: unknown) => T) =>
    informers.get(`kubevirt-${plural}`, () =>
      startSlimInformer({
        config: kube.config,
        path: `/apis/${GROUP}/${VERSION}/${plural}`,
        name: plural,
        logger,
        slim,
        listPage: (token) => list(plural, token),
      }),
    );
  return { vms: start('virtualmachines', slimVm), vmis: start('virtualmachineinstances', slimVmi) };
}
