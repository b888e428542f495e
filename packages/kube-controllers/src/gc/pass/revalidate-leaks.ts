import type { TrackedAllocation } from '../tracked-allocation.js';
import { NOT_KUBERNETES, resolveKubernetesNode } from '../node-mapping.js';
import type { ScanLookups } from '../scan-leaks.js';
import { judge } from '../scan-leaks.js';
import type { PassRun } from './pass-run.js';

/** The final re-validation's answer for one confirmed leak. */
type Decision = 'release' | 'valid' | 'changed' | 'node-back' | 'error';

const WHY: Readonly<Record<'valid' | 'changed' | 'node-back', string>> = {
  valid: 'the owner holds it',
  changed: 'the pod was re-created since the scan',
  'node-back': 'the node exists',
};

/**
 * Re-validates confirmed leaks against the API itself just before they are released (at most
 * `revalidateConcurrency` at once). Returns the handles that must not be released this pass (all
 * or none per handle): any address of theirs found in use again, changed, or not judged (an API
 * error). Addresses found in use again have their leak state reset and are logged.
 */
export async function revalidateLeaks(
  run: PassRun,
  leaks: readonly TrackedAllocation[],
): Promise<Set<string>> {
  const { state, settings, ports } = run.ctx;
  const decisions = new Map<TrackedAllocation, Decision>();
  await forEachLimited(leaks, settings.revalidateConcurrency, async (t) => {
    decisions.set(t, await revalidateLeak(run, t));
  });
  const blockedHandles = new Set(
    leaks.filter((t) => decisions.get(t) !== 'release').map((t) => t.handle),
  );
  for (const t of leaks) {
    const d = decisions.get(t);
    if (d !== 'valid' && d !== 'changed' && d !== 'node-back') continue;
    ports.logger.log(
      'info',
      'leak candidate no longer a leak at the final re-validation; not released',
      {
        ip: t.ip,
        handle: t.handle,
        node: t.node,
        namespace: t.attrs.namespace,
        pod: t.attrs.pod,
        why: WHY[d],
      },
    );
    state.resetLeakState(t);
  }
  return blockedHandles;
}

/**
 * Judges one confirmed leak again with the owner read from the API (not the informer cache) and,
 * for a leak of a deleted node, the node's existence asked of the API. A failed read is counted
 * and logged, and answers `error`.
 */
async function revalidateLeak(run: PassRun, t: TrackedAllocation): Promise<Decision> {
  const { state, ports, nowMs, settings } = run.ctx;
  const node = t.node;
  if (node === undefined) return 'valid';
  const ref = resolveKubernetesNode(node, state.calicoNodes);
  if (ref === NOT_KUBERNETES) return 'valid';
  try {
    const nodeGone = t.reason === 'node-deleted' || t.reason === 'tunnel-node-deleted';
    if (nodeGone && (await run.nodeIsBack(ref))) return 'node-back';
    let lookups: ScanLookups = ports.cache;
    const ns = t.attrs.namespace;
    const name = t.attrs.pod;
    if (!nodeGone && t.kind === 'pod' && ns && name) {
      const pod = await ports.live.pod(ns, name);
      lookups = { ...ports.cache, pod: () => pod };
    }
    const v = judge(t, {
      ref,
      exists: !nodeGone && ports.cache.kubernetesNodeExists(ref),
      lookups,
      nowMs,
      leakGracePeriodMs: settings.leakGracePeriodMs,
      nodeReleasable: true,
    });
    if (v.classification.verdict !== 'leak') return 'valid';
    const podOwned = t.kind === 'pod' || t.kind === 'vm';
    if (podOwned && (v.observedPodUid ?? null) !== (t.observedPodUid ?? null)) return 'changed';
    return 'release';
  } catch (e) {
    run.fail({ operation: 'revalidate', item: `block:${t.blockCidr}` }, e, { ip: t.ip });
    return 'error';
  }
}

/** Runs `fn` over `items`, at most `limit` at a time. */
async function forEachLimited<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
