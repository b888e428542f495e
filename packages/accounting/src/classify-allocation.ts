import type { AllocationFacts, LeakState } from './allocation-facts.js';
import { allocationIsValid, isTunnelAllocation } from './allocation-is-valid.js';
import type { AllocationValidity } from './allocation-is-valid.js';

/** Handle Calico gives the addresses a Windows node reserves for itself. */
export const WINDOWS_RESERVED_HANDLE = 'windows-reserved-ipam-handle';

/** Minimum grace before a KubeVirt VM's address is confirmed leaked (Calico: 5 minutes). */
export const VM_RECREATION_GRACE_MS = 5 * 60 * 1000;

/** `valid`: leave it; `candidate`: suspected, grace running; `leak`: confirmed, may be released. */
type LeakVerdict = 'valid' | 'candidate' | 'leak';

/** Which row of the leak table decided the verdict. */
export type LeakReason =
  | 'windows-reserved'
  | 'unknown-source'
  | 'tunnel-node-exists'
  | 'tunnel-node-in-use'
  | 'tunnel-node-deleted'
  | 'owner-valid'
  | 'node-deleted'
  | 'grace-period-elapsed'
  | 'within-grace-period'
  | 'gc-disabled'
  | 'grace-period-unset';

/** Result of {@link classifyAllocation}; store `leakedAtMs` and `confirmedLeak` for the next scan. */
export interface AllocationClassification extends LeakState {
  readonly verdict: LeakVerdict;
  readonly reason: LeakReason;
  /** The truth check, when the table reached it. */
  readonly validity?: AllocationValidity;
  /** Whether this allocation keeps its deleted node from being cleaned up (Calico's `canDelete=false`). */
  readonly holdsNode: boolean;
}

/**
 * The GC leak predicate (Calico `checkAllocations` per allocation, then `markLeak`/`markValid`):
 * windows-reserved: untouched; neither pod nor tunnel: untouched, holds the node; tunnel: a leak
 * only once its Kubernetes node is gone and `nodeReleasable`; owner valid: valid, holds the node;
 * node gone: leak at once; VM: leak after max(5 min, grace); otherwise leak after the grace
 * period (0 = candidate forever; unset = untouched). Pure: time and lookups come in `facts`.
 */
export function classifyAllocation(facts: AllocationFacts): AllocationClassification {
  const state: LeakState = { leakedAtMs: facts.leakedAtMs, confirmedLeak: facts.confirmedLeak };
  if (facts.handle.toLowerCase() === WINDOWS_RESERVED_HANDLE) {
    return result(state, 'windows-reserved', false);
  }
  const tunnel = isTunnelAllocation(facts.attrs);
  const pod = Boolean(facts.attrs.pod) && Boolean(facts.attrs.namespace);
  if (!pod && !tunnel) return result(state, 'unknown-source', true);
  if (tunnel) {
    if (facts.kubernetesNodeExists) return result(state, 'tunnel-node-exists', false);
    if (facts.nodeReleasable !== true) return result(state, 'tunnel-node-in-use', false);
    return result({ ...state, confirmedLeak: true }, 'tunnel-node-deleted', false);
  }
  const validity = allocationIsValid(facts);
  if (validity.valid) {
    return { ...result({ leakedAtMs: null, confirmedLeak: false }, 'owner-valid', true), validity };
  }
  if (!facts.kubernetesNodeExists) {
    return { ...result({ ...state, confirmedLeak: true }, 'node-deleted', false), validity };
  }
  let grace = facts.leakGracePeriodMs;
  if ('vmi-name' in facts.attrs) grace = Math.max(VM_RECREATION_GRACE_MS, grace ?? 0);
  if (grace === null) return { ...result(state, 'grace-period-unset', false), validity };
  return { ...markLeak(state, grace, facts.nowMs), validity };
}

function markLeak(state: LeakState, graceMs: number, nowMs: number): AllocationClassification {
  const leakedAtMs = state.leakedAtMs ?? nowMs;
  // A zero grace period turns GC off: the allocation stays a candidate, for information only.
  const confirmedLeak = state.confirmedLeak || (graceMs > 0 && nowMs - leakedAtMs > graceMs);
  const reason: LeakReason = confirmedLeak
    ? 'grace-period-elapsed'
    : graceMs > 0
      ? 'within-grace-period'
      : 'gc-disabled';
  return result({ leakedAtMs, confirmedLeak }, reason, false);
}

function result(
  state: LeakState,
  reason: LeakReason,
  holdsNode: boolean,
): AllocationClassification {
  const verdict: LeakVerdict = state.confirmedLeak
    ? 'leak'
    : state.leakedAtMs !== null
      ? 'candidate'
      : 'valid';
  return { verdict, reason, holdsNode, ...state };
}
