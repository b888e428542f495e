// CHECK for a Kubernetes pod on the kubernetes datastore: the pod's addresses are where its ADD
// put them, which is not always the container's handle.
import { CniError, CniErrorCode } from '../cni-error.js';
import { cmdCheck } from '../cmd-check.js';
import type { CommandContext } from '../command-context.js';
import type { KubeApi } from './kube-reads.js';
import { kubePaths, readMeta } from './kube-reads.js';
import { vmHandleId, vmiOwnerOf } from './kubevirt.js';
import { readVmiInfo, vmAddressPersistence } from './read-vmi.js';
import { ANNOTATIONS, parseWorkloadAnnotations } from './workload-annotations.js';

/**
 * CHECK of a Kubernetes pod: an `ipAddrsNoIpam` pod holds nothing in IPAM, so `prevResult` (when
 * given) must name exactly the annotation's addresses; a KubeVirt VM pod with persistence is
 * checked on its VM's handle; any other pod as usual (the container's handle). A pod that does
 * not exist is `UnknownContainer` (3).
 */
export async function cmdCheckK8s(ctx: CommandContext, kube: KubeApi): Promise<void> {
  const ref = ctx.cniArgs.k8s;
  if (ref === undefined) return cmdCheck(ctx);
  const pod = await readMeta(kube, kubePaths.pod(ref.namespace, ref.pod));
  if (pod === undefined) {
    throw new CniError(
      CniErrorCode.UnknownContainer,
      `pod ${ref.namespace}/${ref.pod} not found in the Kubernetes API`,
    );
  }
  const noIpam = pod.annotations[ANNOTATIONS.ipAddrsNoIpam]
    ? parseWorkloadAnnotations({ pod: pod.annotations, namespace: {} }).ipAddrsNoIpam
    : undefined;
  if (noIpam !== undefined) {
    const prev = ctx.conf.prevResultIps;
    if (
      prev !== undefined &&
      (prev.length !== noIpam.length || prev.some((ip) => !noIpam.includes(ip)))
    ) {
      throw new CniError(
        CniErrorCode.Internal,
        `netledger-ipam: pod ${ref.namespace}/${ref.pod} has ipAddrsNoIpam [${noIpam.join(' ')}] but prevResult names [${prev.join(' ')}]`,
      );
    }
    return;
  }
  const owner = vmiOwnerOf(pod);
  if (owner !== undefined && (await vmAddressPersistence(ctx.client))) {
    const vmi = await readVmiInfo(kube, pod, { owner });
    const handleId = vmHandleId(ctx.conf.name, ref.namespace, vmi?.name ?? owner.name);
    return cmdCheck({ ...ctx, workload: { handleId } });
  }
  return cmdCheck(ctx);
}
