import { isIpamError } from '@netledger/ipam-core';
import { errorText } from '../../logger.js';
import type { PassRun } from './pass-run.js';

/**
 * The fifth phase (a leader only): cleans up the Calico nodes whose Kubernetes node is gone —
 * their blocks' affinities released (only empty blocks) and, where the store keeps it apart, their
 * Calico Node deleted — after asking the API whether the node is back. A node with a block not yet
 * empty (addresses cooling down) backs off and is tried again. Returns how many it cleaned up.
 */
export async function cleanUpDeletedNodes(
  run: PassRun,
  releasableNodes: ReadonlyMap<string, string>,
): Promise<number> {
  const { backoff, nowMs } = run.ctx;
  let cleaned = 0;
  for (const [node, k8sNode] of releasableNodes) {
    if (!run.mayWrite()) break;
    if (backoff.isBackedOff(`node:${node}`, nowMs)) continue;
    if (await cleanUpNode(run, node, k8sNode)) cleaned++;
  }
  return cleaned;
}

/** Cleans up one node; true when it did, false when the node is back or the cleanup failed. */
async function cleanUpNode(run: PassRun, node: string, k8sNode: string): Promise<boolean> {
  const { state, backoff, nowMs, ports, observer } = run.ctx;
  const log = ports.logger;
  try {
    if (await run.nodeIsBack(k8sNode)) {
      log.log('info', 'node exists after all (the cache was behind); not cleaned up', {
        node,
        kubernetesNode: k8sNode,
      });
      return false;
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
    state.dirtyNodes.delete(node);
    backoff.succeeded(`node:${node}`);
    observer?.nodeCleaned?.(node);
    log.log('info', 'cleaned up a deleted node: its blocks and affinities are released', {
      node,
      kubernetesNode: k8sNode,
    });
    return true;
  } catch (e) {
    if (isIpamError(e, 'BlockNotEmpty')) {
      // Usually addresses still cooling down: the cold-IP backstop frees them, then this retries.
      const delay = backoff.failed(`node:${node}`, nowMs);
      log.log('info', 'deleted node not cleaned up yet: a block of it is not empty', {
        node,
        retryInMs: delay,
        error: errorText(e),
      });
    } else run.fail({ operation: 'release-node', item: `node:${node}` }, e, { node });
    return false;
  }
}
