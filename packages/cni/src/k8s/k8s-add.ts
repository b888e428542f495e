// ADD for a Kubernetes pod on the kubernetes datastore: what Calico's main plugin does with the
// pod's annotations before it runs calico-ipam (pools and families into the config, each of
// `ipAddrs` as an `IP=` request, `ipAddrsNoIpam` instead of IPAM), and what calico-ipam itself
// does on Kubernetes (the namespace's labels for pools' namespaceSelector, KubeVirt VM handles).
import { formatIp, parseIp } from '@netledger/accounting';
import { CniError, CniErrorCode } from '../cni-error.js';
import { cmdAdd } from '../cmd-add.js';
import type { IpamResult } from '../cni-result.js';
import type { CommandContext } from '../command-context.js';
import { allocationAttrs, handleIdFor } from '../workload-identity.js';
import type { KubeApi, KubeMeta } from './kube-reads.js';
import { readPodAndNamespace } from './kube-reads.js';
import type { VmiInfo } from './kubevirt.js';
import { vmAttrs, vmHandleId, vmiOwnerOf } from './kubevirt.js';
import { readVmiInfo, vmAddressPersistence, vmHandleIps } from './read-vmi.js';
import type { WorkloadIpamRequest } from './workload-annotations.js';
import { parseWorkloadAnnotations } from './workload-annotations.js';

const invalid = (msg: string): CniError => new CniError(CniErrorCode.InvalidNetworkConfig, msg);
const internal = (msg: string): CniError => new CniError(CniErrorCode.Internal, msg);

/** An address as a /32 or /128. */
const hostCidr = (ip: string): string => {
  const a = parseIp(ip);
  return `${formatIp(a)}/${a.version === 4 ? 32 : 128}`;
};

/** Refuses what `feature_control` does not enable, before anything is assigned. */
function checkFeatures(ctx: CommandContext, req: WorkloadIpamRequest): void {
  const features = ctx.conf.ipam.featureControl;
  if (req.ipAddrsNoIpam && !features.ipAddrsNoIpam) {
    throw invalid('requested feature is not enabled: ip_addrs_no_ipam');
  }
  if (req.floatingIps && !features.floatingIps) {
    throw invalid('requested feature is not enabled: floating_ips');
  }
}

/**
 * The pod's VM when it is a virt-launcher pod and persistence is enabled; undefined otherwise. A
 * live-migration target with persistence disabled is refused, as Calico does.
 */
async function persistentVm(
  ctx: CommandContext,
  kube: KubeApi,
  pod: KubeMeta,
): Promise<VmiInfo | undefined> {
  const owner = vmiOwnerOf(pod);
  if (owner === undefined) return undefined;
  const vmi = await readVmiInfo(kube, pod, owner);
  if (vmi === undefined) {
    throw internal(
      `failed to get VMI info: VirtualMachineInstance ${pod.namespace}/${owner.name} not found`,
    );
  }
  if (await vmAddressPersistence(ctx.client)) return vmi;
  if (vmi.migrationJobUid !== undefined) {
    throw internal(
      'live migration target pod is not allowed when KubeVirtVMAddressPersistence is disabled',
    );
  }
  return undefined;
}

/**
 * Calico's `handleVirtLauncherPod`: the VM handle's addresses, when it has any, are this pod's.
 * A source pod becomes their active owner (routes as usual); a migration target their alternate
 * owner (no routes: the source keeps the traffic until Felix swaps the owners). A migration target
 * without addresses is an error; a source pod without any assigns as usual (undefined).
 */
async function reuseVmAddresses(
  ctx: CommandContext,
  vm: VmiInfo,
  handleId: string,
  attrs: Record<string, string>,
): Promise<IpamResult | undefined> {
  const ips = await vmHandleIps(ctx.client, handleId);
  const target = vm.migrationJobUid !== undefined;
  if (ips.length === 0) {
    if (target)
      throw internal(`migration target pod but no IP allocated to VMI handle ${handleId}`);
    return undefined;
  }
  for (const ip of ips) {
    await ctx.client.setOwnerAttributes(
      ip,
      handleId,
      target ? { alternateOwnerAttrs: attrs } : { activeOwnerAttrs: attrs },
    );
  }
  ctx.log.info(
    `VM ${vm.namespace}/${vm.name}: ${target ? 'migration target' : 'pod'} takes ${ips.join(', ')} of ${handleId}`,
  );
  return { ips: ips.map(hostCidr), ...(target && { noRoutes: true }) };
}

/**
 * `ipAddrs`: one `IP=` assignment per address, as Calico's main plugin runs calico-ipam once per
 * address. If one fails, those already assigned are released before the error is returned.
 */
async function assignEach(
  ctx: CommandContext,
  handleId: string,
  ips: readonly string[],
): Promise<IpamResult> {
  const done: string[] = [];
  try {
    for (const ip of ips) {
      done.push(...(await cmdAdd({ ...ctx, cniArgs: { ...ctx.cniArgs, ip } })).ips);
    }
  } catch (e) {
    if (done.length > 0) {
      await ctx.client
        .releaseIps(done.map((a) => ({ address: a.split('/')[0]!, handle: handleId })))
        .catch((r: unknown) =>
          ctx.log.error(`failed to release ${done.join(', ')}: ${(r as Error).message}`),
        );
    }
    throw e;
  }
  return { ips: done };
}

/**
 * ADD for the pod named in CNI_ARGS, read through `kube` with its namespace:
 * - `ipAddrsNoIpam` (with `feature_control.ip_addrs_no_ipam`): the addresses as /32 or /128,
 *   nothing assigned;
 * - `ipAddrs`: each address assigned (`IP=`), returned as /32 or /128;
 * - otherwise auto-assignment from the pools of the pod's annotation, else the namespace's, else
 *   the config's, for the families of `ipFamilies` (else the config's), with the namespace's
 *   labels for pools' `namespaceSelector`.
 * A virt-launcher pod, with persistence enabled, uses its VM's handle (`<network>.vmi.<ns>.<vm>`,
 * one address per family, `vmi-*` attributes) and takes that handle's addresses when it has some.
 * `floatingIPs` needs `feature_control.floating_ips` and is otherwise the main plugin's and
 * Felix's business: it is validated and logged. Every refusal (a missing pod, bad annotations, a
 * disabled feature) comes before anything is assigned.
 */
export async function cmdAddK8s(ctx: CommandContext, kube: KubeApi): Promise<IpamResult> {
  const ref = ctx.cniArgs.k8s;
  if (ref === undefined) return cmdAdd(ctx);
  const { pod, namespace } = await readPodAndNamespace(kube, ref);
  const req = parseWorkloadAnnotations({
    pod: pod.annotations,
    namespace: namespace.annotations,
  });
  checkFeatures(ctx, req);
  if (req.ipAddrsNoIpam) {
    ctx.log.info(`pod ${ref.namespace}/${ref.pod}: ipAddrsNoIpam ${req.ipAddrsNoIpam.join(', ')}`);
    return { ips: req.ipAddrsNoIpam.map(hostCidr) };
  }
  if (req.floatingIps) {
    ctx.log.info(
      `pod ${ref.namespace}/${ref.pod}: floatingIPs ${req.floatingIps.join(', ')} (NAT is the main plugin's and Felix's)`,
    );
  }
  const vm = await persistentVm(ctx, kube, pod);
  const handleId = vm
    ? vmHandleId(ctx.conf.name, vm.namespace, vm.name)
    : handleIdFor(ctx.conf.name, ctx.request.containerId, ctx.request.ifname);
  const ipam = ctx.conf.ipam;
  const adjusted: CommandContext = {
    ...ctx,
    conf: {
      ...ctx.conf,
      ipam: {
        ...ipam,
        ipv4Pools: req.ipv4Pools ?? ipam.ipv4Pools,
        ipv6Pools: req.ipv6Pools ?? ipam.ipv6Pools,
        assignIpv4: req.families?.ipv4 ?? ipam.assignIpv4,
        assignIpv6: req.families?.ipv6 ?? ipam.assignIpv6,
      },
    },
    workload: {
      namespace: { name: ref.namespace, labels: namespace.labels },
      ...(vm && { handleId, attrs: vmAttrs(vm), maxAllocToHandlePerIpVersion: 1 }),
    },
  };
  if (vm) {
    const attrs = {
      ...allocationAttrs({
        nodename: ctx.nodename,
        cniArgs: ctx.cniArgs,
        nowMs: ctx.nowMs(),
        attachment: { containerId: ctx.request.containerId, ifname: ctx.request.ifname },
      }),
      ...vmAttrs(vm),
    };
    const reused = await reuseVmAddresses(adjusted, vm, handleId, attrs);
    if (reused) return reused;
  }
  if (req.ipAddrs) return assignEach(adjusted, handleId, req.ipAddrs);
  return cmdAdd(adjusted);
}
