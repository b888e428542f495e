import { classifyAllocation, parseIp } from '@netledger/accounting';
import type { AllocationClassification, PodLookup, VmLookup } from '@netledger/accounting';
import type { GcState } from './gc-state.js';
import type { TrackedAllocation } from './tracked-allocation.js';
import { NOT_KUBERNETES, resolveKubernetesNode } from './node-mapping.js';
import type { SlimPod } from '../kube/slim-pod.js';
import { podLookupOf, podReportsAddress } from '../kube/slim-pod.js';

/** Read-only lookups the scan judges allocations with (informer caches; no API request). */
export interface ScanLookups {
  /** Whether the Kubernetes node exists. */
  kubernetesNodeExists(name: string): boolean;
  /** The pod `namespace/name`, or undefined when there is none. */
  pod(namespace: string, name: string): SlimPod | undefined;
  /** The KubeVirt VM of a `vmi-name` allocation (default: KubeVirt absent, so always valid). */
  vm?(namespace: string, name: string): VmLookup;
}

/** Inputs of {@link scanNode} besides the state. */
export interface ScanOptions {
  readonly lookups: ScanLookups;
  readonly leakGracePeriodMs: number | null;
  readonly nowMs: number;
}

/** The predicate's verdict on one allocation, and the pod uid it was judged against. */
export interface AllocationVerdict {
  readonly allocation: TrackedAllocation;
  readonly classification: AllocationClassification;
  readonly observedPodUid: string | null | undefined;
}

/** The scan of one Calico node. */
export interface NodeScan {
  readonly node: string;
  /** The Kubernetes node it maps to; undefined when it is not a Kubernetes node (skipped). */
  readonly kubernetesNode: string | undefined;
  readonly kubernetesNodeExists: boolean;
  readonly verdicts: readonly AllocationVerdict[];
  /** The Kubernetes node is gone and nothing on it is still in use: clean the node up. */
  readonly releasable: boolean;
}

/**
 * Judges every allocation on one Calico node with the leak predicate (`classifyAllocation`,
 * Calico's `checkAllocations`), tunnel addresses last (they go only with a releasable node).
 * Pure: reads the state and the lookups, returns verdicts for the caller to record.
 *
 * One deliberate difference from Calico (calico#12257): a pod that reports the address itself
 * (its status or Calico's annotations) is judged on its actual node, not the node named by the
 * allocation's attributes, which can be stale; so a live pod's address is never taken for a
 * rescheduled one.
 */
export function scanNode(state: GcState, node: string, options: ScanOptions): NodeScan {
  const { lookups, nowMs, leakGracePeriodMs } = options;
  const ref = resolveKubernetesNode(node, state.calicoNodes);
  if (ref === NOT_KUBERNETES) {
    return {
      node,
      kubernetesNode: undefined,
      kubernetesNodeExists: true,
      verdicts: [],
      releasable: false,
    };
  }
  const exists = lookups.kubernetesNodeExists(ref);
  const verdicts: AllocationVerdict[] = [];
  const tunnels: TrackedAllocation[] = [];
  let holds = false;
  for (const t of state.allocationsByNode.get(node)?.values() ?? []) {
    if (t.releaseRequested) continue;
    if (t.kind === 'tunnel') {
      tunnels.push(t);
      continue;
    }
    const v = judge(t, { ref, exists, lookups, nowMs, leakGracePeriodMs });
    if (v.classification.holdsNode) holds = true;
    verdicts.push(v);
  }
  const releasable = !exists && !holds;
  for (const t of tunnels) {
    verdicts.push(
      judge(t, { ref, exists, lookups, nowMs, leakGracePeriodMs, nodeReleasable: releasable }),
    );
  }
  return { node, kubernetesNode: ref, kubernetesNodeExists: exists, verdicts, releasable };
}

/** Judges one allocation (also the final re-validation, with fresher lookups). */
export function judge(
  t: TrackedAllocation,
  o: {
    readonly ref: string;
    readonly exists: boolean;
    readonly lookups: ScanLookups;
    readonly nowMs: number;
    readonly leakGracePeriodMs: number | null;
    readonly nodeReleasable?: boolean;
  },
): AllocationVerdict {
  let pod: PodLookup | undefined;
  let observedPodUid: string | null | undefined;
  let knode = o.ref;
  const ns = t.attrs.namespace;
  const name = t.attrs.pod;
  if ((t.kind === 'pod' || t.kind === 'vm') && ns && name) {
    const found = o.lookups.pod(ns, name);
    pod = podLookupOf(found);
    observedPodUid = found ? found.metadata.uid : null;
    if (found && found.nodeName !== '' && podReportsAddress(found, t.ip)) knode = found.nodeName;
  }
  const vm: VmLookup | undefined =
    t.kind === 'vm' && ns && t.attrs['vmi-name']
      ? (o.lookups.vm?.(ns, t.attrs['vmi-name']) ?? 'kubevirtAbsent')
      : undefined;
  const classification = classifyAllocation({
    ip: (t.parsedIp ??= parseIp(t.ip)),
    handle: t.handle,
    attrs: t.attrs,
    knode,
    kubernetesNodeExists: o.exists,
    ...(o.nodeReleasable !== undefined && { nodeReleasable: o.nodeReleasable }),
    ...(pod && { pod }),
    ...(vm && { vm }),
    leakGracePeriodMs: o.leakGracePeriodMs,
    nowMs: o.nowMs,
    leakedAtMs: t.leakedAtMs,
    confirmedLeak: t.confirmedLeak,
  });
  return { allocation: t, classification, observedPodUid };
}
