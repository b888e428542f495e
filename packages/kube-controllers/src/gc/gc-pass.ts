import { VM_RECREATION_GRACE_MS } from '@netledger/accounting';
import type { Datastore, IpamClient, ReleaseOptions } from '@netledger/ipam-core';
import { isIpamError } from '@netledger/ipam-core';
import type { IpamGcSettings } from './gc-settings.js';
import type { GcState, TrackedAllocation } from './gc-state.js';
import type { ItemBackoff } from '../manager/item-backoff.js';
import type { Logger } from '../logger.js';
import { errorText } from '../logger.js';
import { NOT_KUBERNETES, resolveKubernetesNode } from './node-mapping.js';
import { planColdBlocks, planEmptyBlockReleases, planOrphanHandles } from './plan-blocks.js';
import { planReleases } from './plan-releases.js';
import type { ScanLookups } from './scan-leaks.js';
import { judge, scanNode } from './scan-leaks.js';
import type { SlimPod } from '../kube/slim-pod.js';

/** Reads straight from the Kubernetes API, for the final re-validation (never from a cache). */
export interface LiveLookups {
  /** The pod, or undefined on NotFound; throws on any other failure. */
  pod(namespace: string, name: string): Promise<SlimPod | undefined>;
  /** Whether the node exists; throws on a failure other than NotFound. */
  nodeExists(name: string): Promise<boolean>;
}

/** What a GC pass writes through, and where it looks things up. */
export interface GcPorts {
  readonly ipam: Pick<
    IpamClient,
    'releaseIps' | 'releaseBlockAffinity' | 'releaseHostAffinities' | 'garbageCollectColdIps'
  > & { readonly nodes?: Pick<IpamClient['nodes'], 'delete'> };
  /** For orphan handle deletion (a CAS delete at the observed revision). */
  readonly datastore: Pick<Datastore, 'delete'>;
  readonly cache: ScanLookups;
  readonly live: LiveLookups;
  readonly logger: Logger;
  /** Checked before every write: a replica that lost its lease writes nothing more. */
  readonly isLeader: () => boolean;
  /** Delete the Calico Node resource of a cleaned-up node (stores where it is separate). */
  readonly deleteCalicoNodes?: boolean;
}

/** Observers of a pass (metrics). */
export interface GcPassObserver {
  reclaimed?(t: TrackedAllocation, pool: string): void;
  nodeCleaned?(node: string): void;
  error?(operation: GcOperation): void;
}

/** The kinds of write a pass makes (the `operation` label of its error counter). */
export type GcOperation =
  | 'release-leaks'
  | 'revalidate'
  | 'cold-ip-gc'
  | 'release-empty-block'
  | 'release-node'
  | 'delete-handle';

/** Everything one pass works on. */
export interface GcPassContext {
  readonly state: GcState;
  readonly settings: IpamGcSettings;
  readonly backoff: ItemBackoff;
  readonly ports: GcPorts;
  readonly nowMs: number;
  readonly observer?: GcPassObserver;
}

/** What a pass did. */
export interface GcPassReport {
  readonly skipped?: 'datastore-not-ready';
  readonly scannedNodes: number;
  readonly candidates: number;
  readonly confirmed: number;
  readonly released: number;
  readonly notReleased: number;
  readonly coldBlocksCollected: number;
  readonly emptyBlocksReleased: number;
  readonly nodesCleaned: number;
  readonly handlesDeleted: number;
  readonly errors: number;
  /** When the pass should run again for time-based work (a grace period ending), if ever. */
  readonly nextDeadlineMs: number | undefined;
  /** Confirmed leaks or node cleanups left for a later pass. */
  readonly workRemaining: boolean;
}

type Decision = 'release' | 'valid' | 'changed' | 'node-back' | 'error';

/**
 * One GC pass (Calico's `syncIPAM`): judge allocations of the dirty nodes (all of them on a full
 * scan), release confirmed leaks (all or none per handle, re-validated against the API just
 * before, one `releaseIps` per block with handle and sequence number per address), the cold-IP
 * backstop, empty-block affinity release, deleted-node cleanup and orphan handle deletion. Only a
 * leader writes; a follower still judges, so its metrics are current. A failed write backs its
 * item off and leaves the rest of the pass going; what is left over rolls to the next pass.
 */
export async function runGcPass(ctx: GcPassContext): Promise<GcPassReport> {
  const { state, settings, ports, nowMs, backoff } = ctx;
  const log = ports.logger;
  let errors = 0;
  const fail = (
    what: { readonly operation: GcOperation; readonly item: string },
    e: unknown,
    fields = {},
  ): void => {
    const { operation, item } = what;
    errors++;
    ctx.observer?.error?.(operation);
    const delay = backoff.failed(item, nowMs);
    log.log('warn', `${operation} failed; retrying later`, {
      item,
      retryInMs: delay,
      error: errorText(e),
      ...fields,
    });
  };
  const empty = {
    scannedNodes: 0,
    candidates: 0,
    confirmed: 0,
    released: 0,
    notReleased: 0,
    coldBlocksCollected: 0,
    emptyBlocksReleased: 0,
    nodesCleaned: 0,
    handlesDeleted: 0,
    errors: 0,
  };
  if (!state.datastoreReady) {
    log.log('info', 'datastore is locked (ClusterInformation datastoreReady=false): GC paused');
    return {
      ...empty,
      skipped: 'datastore-not-ready',
      nextDeadlineMs: undefined,
      workRemaining: false,
    };
  }
  const grace = settings.leakGracePeriodMs;
  let nextDeadlineMs: number | undefined;
  const deadline = (ms: number): void => {
    if (nextDeadlineMs === undefined || ms < nextDeadlineMs) nextDeadlineMs = ms;
  };

  // 1. Judge.
  const nodes = state.fullScanRequired ? state.scannableNodes() : new Set(state.dirtyNodes);
  state.fullScanRequired = false;
  state.dirtyNodes.clear();
  const releasableNodes = new Map<string, string>();
  let candidates = 0;
  for (const node of nodes) {
    const scan = scanNode(state, node, { lookups: ports.cache, leakGracePeriodMs: grace, nowMs });
    let keepDirty = false;
    for (const v of scan.verdicts) {
      const c = v.classification;
      state.recordVerdict(v.allocation, { ...c, observedPodUid: v.observedPodUid });
      if (c.verdict === 'candidate') {
        candidates++;
        if (c.reason === 'within-grace-period' && c.leakedAtMs !== null && grace !== null) {
          const g = v.allocation.kind === 'vm' ? Math.max(VM_RECREATION_GRACE_MS, grace) : grace;
          deadline(c.leakedAtMs + g + 1);
          keepDirty = true;
        }
      }
    }
    if (scan.releasable && scan.kubernetesNode !== undefined) {
      releasableNodes.set(node, scan.kubernetesNode);
      keepDirty = true;
    }
    if (keepDirty) state.dirtyNodes.add(node);
  }
  const confirmed = state.confirmedLeaks.size;
  const writes = ports.isLeader();

  // Final re-validation helpers: a node's existence is asked of the API once per pass.
  const liveNodes = new Map<string, Promise<boolean>>();
  const nodeIsBack = (k8sNode: string): Promise<boolean> => {
    let p = liveNodes.get(k8sNode);
    if (!p) liveNodes.set(k8sNode, (p = ports.live.nodeExists(k8sNode)));
    return p;
  };

  // 2. Release confirmed leaks.
  let released = 0;
  let notReleased = 0;
  if (writes) {
    const plan = planReleases(state, {
      maxReleases: settings.maxReleasesPerPass,
      isBackedOff: (cidr) => backoff.isBackedOff(`block:${cidr}`, nowMs),
    });
    const all = plan.batches.flatMap((b) => b.allocations);
    const decisions = new Map<TrackedAllocation, Decision>();
    await forEachLimited(all, settings.revalidateConcurrency, async (t) => {
      decisions.set(t, await revalidate(t));
    });
    // All or none per handle, again after the re-validation.
    const blockedHandles = new Set(
      all.filter((t) => decisions.get(t) !== 'release').map((t) => t.handle),
    );
    for (const t of all) {
      const d = decisions.get(t);
      if (d === 'valid' || d === 'changed' || d === 'node-back') {
        log.log(
          'info',
          'leak candidate no longer a leak at the final re-validation; not released',
          {
            ip: t.ip,
            handle: t.handle,
            node: t.node,
            namespace: t.attrs.namespace,
            pod: t.attrs.pod,
            why:
              d === 'changed'
                ? 'the pod was re-created since the scan'
                : d === 'node-back'
                  ? 'the node exists'
                  : 'the owner holds it',
          },
        );
        state.resetLeakState(t);
      }
    }
    for (const batch of plan.batches) {
      const chosen = batch.allocations.filter((t) => !blockedHandles.has(t.handle));
      if (chosen.length === 0) continue;
      if (!ports.isLeader()) break;
      const options: ReleaseOptions[] = chosen.map((t) => ({
        address: t.ip,
        handle: t.handle,
        sequenceNumber: t.sequenceNumber,
      }));
      const byIp = new Map(chosen.map((t) => [t.ip, t]));
      const pool = state.blocks.get(batch.blockCidr)?.pool ?? '';
      try {
        const result = await ports.ipam.releaseIps(options);
        backoff.succeeded(`block:${batch.blockCidr}`);
        for (const o of result.released) {
          const t = byIp.get(o.address);
          if (!t) continue;
          state.markReleaseRequested(t);
          if (result.unallocated.includes(o.address)) continue;
          released++;
          ctx.observer?.reclaimed?.(t, pool);
          log.log('info', 'released leaked address', {
            ip: t.ip,
            handle: t.handle,
            block: t.blockCidr,
            node: t.node,
            namespace: t.attrs.namespace,
            pod: t.attrs.pod,
            type: t.attrs.type,
            reason: t.reason,
            leakedAt: t.leakedAtMs === null ? undefined : new Date(t.leakedAtMs).toISOString(),
          });
        }
      } catch (e) {
        notReleased += chosen.length;
        if (isIpamError(e, 'BadSequenceNumber', 'BadHandle')) {
          // An address of the batch was released and re-used between the scan and this call: the
          // sequence number guard refused the whole block's batch, as it must. The watch brings the
          // new state; this block waits a little before it is tried again.
          backoff.failed(`block:${batch.blockCidr}`, nowMs);
          log.log(
            'info',
            'not released: an address changed since the scan (re-used); the block is judged again',
            {
              block: batch.blockCidr,
              addresses: chosen.map((t) => t.ip).join(','),
              error: errorText(e),
            },
          );
        } else {
          fail({ operation: 'release-leaks', item: `block:${batch.blockCidr}` }, e, {
            block: batch.blockCidr,
          });
        }
      }
    }
    notReleased += plan.heldByHandle + plan.deferred;
    if (plan.heldByHandle > 0) {
      log.log('debug', 'confirmed leaks held: another address of their handle is in use', {
        count: plan.heldByHandle,
      });
    }
  }

  // 3. The cold-IP backstop.
  let coldBlocksCollected = 0;
  for (const cidr of planColdBlocks(state, {
    nowMs,
    isBackedOff: (c) => backoff.isBackedOff(`cold:${c}`, nowMs),
  })) {
    if (!writes || !ports.isLeader()) break;
    try {
      if (await ports.ipam.garbageCollectColdIps(cidr)) {
        coldBlocksCollected++;
        log.log('info', 'freed cooled-down addresses of an idle block', { block: cidr });
      }
      backoff.succeeded(`cold:${cidr}`);
    } catch (e) {
      // A stale view (changed or deleted since): the watch delivers the fresh block.
      if (!isIpamError(e, 'UpdateConflict', 'DoesNotExist'))
        fail({ operation: 'cold-ip-gc', item: `cold:${cidr}` }, e, { block: cidr });
    }
  }
  for (const earliest of state.coldBlocks.values())
    deadline(earliest + state.ipCooldownSeconds * 1000);

  // 4. Empty blocks.
  let emptyBlocksReleased = 0;
  const emptyPlan = planEmptyBlockReleases(state, {
    nowMs,
    leakGracePeriodMs: grace,
    releasingNodes: new Set(releasableNodes.keys()),
    isBackedOff: (c) => backoff.isBackedOff(`empty:${c}`, nowMs),
  });
  for (const cidr of emptyPlan.firstSeenEmpty) state.emptySince.set(cidr, nowMs);
  for (const r of emptyPlan.releases) {
    if (!writes || !ports.isLeader()) break;
    try {
      await ports.ipam.releaseBlockAffinity(r.cidr, { mustBeEmpty: true });
      emptyBlocksReleased++;
      backoff.succeeded(`empty:${r.cidr}`);
      log.log('info', 'released the affinity of an empty block', {
        block: r.cidr,
        node: r.node,
        reason: r.reason,
      });
    } catch (e) {
      if (isIpamError(e, 'BlockNotEmpty')) state.emptySince.delete(r.cidr);
      else if (!isIpamError(e, 'DoesNotExist'))
        fail({ operation: 'release-empty-block', item: `empty:${r.cidr}` }, e, { block: r.cidr });
    }
  }
  if (grace !== null && grace > 0)
    for (const since of state.emptySince.values()) deadline(since + grace + 1);

  // 5. Deleted nodes.
  let nodesCleaned = 0;
  for (const [node, k8sNode] of releasableNodes) {
    if (!writes || !ports.isLeader()) break;
    if (backoff.isBackedOff(`node:${node}`, nowMs)) continue;
    try {
      if (await nodeIsBack(k8sNode)) {
        log.log('info', 'node exists after all (the cache was behind); not cleaned up', {
          node,
          kubernetesNode: k8sNode,
        });
        continue;
      }
      await ports.ipam.releaseHostAffinities(
        { affinityType: 'host', host: node },
        { mustBeEmpty: true },
      );
      if (ports.deleteCalicoNodes && state.calicoNodes.get(node) === k8sNode && ports.ipam.nodes) {
        await ports.ipam.nodes.delete(node).catch((e: unknown) => {
          if (!isIpamError(e, 'DoesNotExist')) throw e;
        });
      }
      nodesCleaned++;
      state.dirtyNodes.delete(node);
      backoff.succeeded(`node:${node}`);
      ctx.observer?.nodeCleaned?.(node);
      log.log('info', 'cleaned up a deleted node: its blocks and affinities are released', {
        node,
        kubernetesNode: k8sNode,
      });
    } catch (e) {
      if (isIpamError(e, 'BlockNotEmpty')) {
        // Usually addresses still cooling down: the cold-IP backstop frees them, then this retries.
        const delay = backoff.failed(`node:${node}`, nowMs);
        log.log('info', 'deleted node not cleaned up yet: a block of it is not empty', {
          node,
          retryInMs: delay,
          error: errorText(e),
        });
      } else fail({ operation: 'release-node', item: `node:${node}` }, e, { node });
    }
  }

  // 6. Orphan handles.
  let handlesDeleted = 0;
  const handlePlan = planOrphanHandles(state, {
    nowMs,
    leakGracePeriodMs: grace,
    isBackedOff: (k) => backoff.isBackedOff(`handle:${k}`, nowMs),
  });
  for (const key of handlePlan.inUse) {
    const h = state.handles.get(key);
    if (h) h.orphanSinceMs = null;
  }
  for (const key of handlePlan.firstSeenOrphan) {
    const h = state.handles.get(key);
    if (h) h.orphanSinceMs = nowMs;
  }
  for (const d of handlePlan.deletions) {
    if (!writes || !ports.isLeader()) break;
    const h = state.handles.get(d.key.handleId);
    if (!h || h.revision !== d.revision || state.allocationsByHandle.has(d.handleId)) continue;
    try {
      await ports.datastore.delete(d.key, {
        revision: d.revision,
        ...(d.uid !== undefined && { uid: d.uid }),
      });
      handlesDeleted++;
      state.deleteHandle(d.key.handleId);
      backoff.succeeded(`handle:${d.key.handleId}`);
      log.log(
        'info',
        'deleted an orphan handle: it held no address for longer than the grace period',
        {
          handle: d.handleId,
          since: h.orphanSinceMs === null ? undefined : new Date(h.orphanSinceMs).toISOString(),
        },
      );
    } catch (e) {
      if (isIpamError(e, 'UpdateConflict'))
        h.orphanSinceMs = null; // changed since: observe again
      else if (isIpamError(e, 'DoesNotExist')) state.deleteHandle(d.key.handleId);
      else
        fail({ operation: 'delete-handle', item: `handle:${d.key.handleId}` }, e, {
          handle: d.handleId,
        });
    }
  }
  if (grace !== null && grace > 0) {
    for (const h of state.handles.values())
      if (h.orphanSinceMs !== null) deadline(h.orphanSinceMs + grace + 1);
  }
  const retry = backoff.nextRetryMs();
  if (retry !== undefined) deadline(retry);

  return {
    scannedNodes: nodes.size,
    candidates,
    confirmed,
    released,
    notReleased,
    coldBlocksCollected,
    emptyBlocksReleased,
    nodesCleaned,
    handlesDeleted,
    errors,
    nextDeadlineMs,
    workRemaining:
      [...state.confirmedLeaks.values()].some((t) => !t.releaseRequested) ||
      releasableNodes.size > nodesCleaned,
  };

  async function revalidate(t: TrackedAllocation): Promise<Decision> {
    const node = t.node;
    if (node === undefined) return 'valid';
    const ref = resolveKubernetesNode(node, state.calicoNodes);
    if (ref === NOT_KUBERNETES) return 'valid';
    try {
      const nodeGone = t.reason === 'node-deleted' || t.reason === 'tunnel-node-deleted';
      if (nodeGone && (await nodeIsBack(ref))) return 'node-back';
      let lookups: ScanLookups = ports.cache;
      const ns = t.attrs.namespace;
      const name = t.attrs.pod;
      if (!nodeGone && t.kind === 'pod' && ns && name) {
        // The owner is asked of the API itself, not the informer cache.
        const pod = await ports.live.pod(ns, name);
        lookups = { ...ports.cache, pod: () => pod };
      }
      const v = judge(t, {
        ref,
        exists: !nodeGone && ports.cache.kubernetesNodeExists(ref),
        lookups,
        nowMs,
        leakGracePeriodMs: grace,
        nodeReleasable: true,
      });
      if (v.classification.verdict !== 'leak') return 'valid';
      if (
        (t.kind === 'pod' || t.kind === 'vm') &&
        (v.observedPodUid ?? null) !== (t.observedPodUid ?? null)
      ) {
        return 'changed';
      }
      return 'release';
    } catch (e) {
      fail({ operation: 'revalidate', item: `block:${t.blockCidr}` }, e, { ip: t.ip });
      return 'error';
    }
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
