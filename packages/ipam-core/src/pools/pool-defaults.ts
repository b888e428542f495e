import { ipVersionOf } from '../model/keys.js';
import type { IPPool, IPPoolAllowedUse } from '../model/resources.js';

/** Calico's default block size (prefix length) per IP version. */
export const DEFAULT_BLOCK_SIZE = { 4: 26, 6: 122 } as const;

/** The node selector a pool without one gets: every node. */
const DEFAULT_NODE_SELECTOR = 'all()';

/** The allowed uses a pool without any gets. */
export const DEFAULT_ALLOWED_USES: readonly IPPoolAllowedUse[] = ['Workload', 'Tunnel'];

/**
 * A copy of `pool` with Calico's read defaults filled in (`convertIpPoolFromStorage`): blockSize
 * 26 (IPv4) or 122 (IPv6) when absent or 0, nodeSelector `all()` when empty, allowedUses
 * `[Workload, Tunnel]` when empty, assignmentMode `Automatic`. Never mutates `pool`.
 */
export function withPoolDefaults(pool: IPPool): IPPool {
  const spec = pool.spec;
  return {
    ...pool,
    spec: {
      ...spec,
      blockSize: spec.blockSize ? spec.blockSize : DEFAULT_BLOCK_SIZE[ipVersionOf(spec.cidr)],
      nodeSelector: spec.nodeSelector ? spec.nodeSelector : DEFAULT_NODE_SELECTOR,
      allowedUses:
        spec.allowedUses && spec.allowedUses.length > 0
          ? [...spec.allowedUses]
          : [...DEFAULT_ALLOWED_USES],
      assignmentMode: spec.assignmentMode ?? 'Automatic',
    },
  };
}
