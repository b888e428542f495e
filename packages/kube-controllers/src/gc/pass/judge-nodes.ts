import { VM_RECREATION_GRACE_MS } from '@netledger/accounting';
import type { NodeScan } from '../scan-leaks.js';
import { scanNode } from '../scan-leaks.js';
import type { PassRun } from './pass-run.js';

/** What the judging found. */
export interface JudgedNodes {
  readonly scannedNodes: number;
  readonly candidates: number;
  /** Calico nodes to clean up whole (their Kubernetes node is gone, nothing holds them) -> that node. */
  readonly releasableNodes: ReadonlyMap<string, string>;
}

/**
 * The first phase: judges the allocations of the dirty nodes (every node on a full scan) and
 * records each verdict in the state. A node stays dirty while a candidate waits out its grace
 * period (whose end becomes a deadline of the pass) or while it is to be cleaned up.
 */
export function judgeNodes(run: PassRun): JudgedNodes {
  const { state, ports, nowMs, settings } = run.ctx;
  const nodes = state.fullScanRequired ? state.scannableNodes() : new Set(state.dirtyNodes);
  state.fullScanRequired = false;
  state.dirtyNodes.clear();
  const releasableNodes = new Map<string, string>();
  let candidates = 0;
  for (const node of nodes) {
    const scan = scanNode(state, node, {
      lookups: ports.cache,
      leakGracePeriodMs: settings.leakGracePeriodMs,
      nowMs,
    });
    const recorded = recordVerdicts(run, scan);
    candidates += recorded.candidates;
    let keepDirty = recorded.waiting;
    if (scan.releasable && scan.kubernetesNode !== undefined) {
      releasableNodes.set(node, scan.kubernetesNode);
      keepDirty = true;
    }
    if (keepDirty) state.dirtyNodes.add(node);
  }
  return { scannedNodes: nodes.size, candidates, releasableNodes };
}

/** Records a node's verdicts: how many are candidates, and whether one waits out its grace period. */
function recordVerdicts(run: PassRun, scan: NodeScan): { candidates: number; waiting: boolean } {
  const { state } = run.ctx;
  const grace = run.ctx.settings.leakGracePeriodMs;
  let candidates = 0;
  let waiting = false;
  for (const v of scan.verdicts) {
    const c = v.classification;
    state.recordVerdict(v.allocation, { ...c, observedPodUid: v.observedPodUid });
    if (c.verdict !== 'candidate') continue;
    candidates++;
    if (c.reason === 'within-grace-period' && c.leakedAtMs !== null && grace !== null) {
      const g = v.allocation.kind === 'vm' ? Math.max(VM_RECREATION_GRACE_MS, grace) : grace;
      run.deadline(c.leakedAtMs + g + 1);
      waiting = true;
    }
  }
  return { candidates, waiting };
}
