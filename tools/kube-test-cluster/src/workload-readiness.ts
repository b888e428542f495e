/** The parts of a DaemonSet or Deployment the readiness check reads. */
export interface WorkloadView {
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly generation?: number };
  readonly spec?: { readonly replicas?: number };
  readonly status?: {
    readonly observedGeneration?: number;
    readonly desiredNumberScheduled?: number;
    readonly numberReady?: number;
    readonly updatedNumberScheduled?: number;
    readonly readyReplicas?: number;
    readonly updatedReplicas?: number;
  };
}

/** Why one workload is not ready yet, or undefined when every pod of its spec is Ready. */
function notReady(w: WorkloadView): string | undefined {
  const s = w.status ?? {};
  const name = `${w.kind.toLowerCase()}/${w.metadata.name}`;
  if ((s.observedGeneration ?? 0) < (w.metadata.generation ?? 1)) return `${name}: not observed`;
  if (w.kind === 'DaemonSet') {
    const desired = s.desiredNumberScheduled ?? 0;
    const ready = s.numberReady ?? 0;
    const updated = s.updatedNumberScheduled ?? 0;
    return desired > 0 && ready === desired && updated === desired
      ? undefined
      : `${name}: ${ready} of ${desired} ready`;
  }
  const wanted = w.spec?.replicas ?? 1;
  const ready = s.readyReplicas ?? 0;
  return ready >= wanted && (s.updatedReplicas ?? 0) >= wanted
    ? undefined
    : `${name}: ${ready} of ${wanted} ready`;
}

/**
 * Whether every DaemonSet (its pods scheduled on at least one node) and Deployment has its pods
 * of the current spec Ready, and otherwise what each waits for, for progress and error messages.
 */
export function workloadsReady(workloads: readonly WorkloadView[]): {
  ready: boolean;
  why: string;
} {
  const waiting = workloads.map(notReady).filter((w): w is string => w !== undefined);
  return { ready: workloads.length > 0 && waiting.length === 0, why: waiting.join('; ') };
}
