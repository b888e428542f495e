import { goTimeFromMs } from '../codec/go-time.js';
import type { KVPair } from '../datastore/datastore.js';
import type { Datastore } from '../datastore/datastore.js';
import type { Condition, IPPool } from '../model/resources.js';
import { withPoolDefaults } from '../pools/pool-defaults.js';
import { validatePool, validatePoolUpdate } from '../pools/pool-validation.js';
import type { ResourceHooks } from './resource-client.js';

/** Options for the pool client's extra steps. */
export interface PoolHooksOptions {
  readonly datastore: Datastore;
  /**
   * Milliseconds since the epoch, for the `Allocatable` condition's transition time (and, through
   * the resource clients, `creationTimestamp`).
   */
  readonly clock?: { now(): number };
  /**
   * Called on delete after the pool has been disabled and before it is removed (Calico releases
   * the pool's block affinities here); a failure aborts the delete, leaving the pool disabled.
   */
  readonly releasePoolAffinities?: (poolCidr: string) => Promise<void>;
}

/**
 * `pool` with `ipipMode` and `vxlanMode` `Never` where unset, as Calico's pool client defaults them
 * on create, update and read (clientv3/ippool.go: validateAndSetDefaults, convertIpPoolFromStorage),
 * so a pool created without them is stored as calicoctl would store it.
 */
function withEncapDefaults(pool: IPPool): IPPool {
  const { ipipMode, vxlanMode } = pool.spec;
  if (ipipMode && vxlanMode) return pool;
  return {
    ...pool,
    spec: { ...pool.spec, ipipMode: ipipMode || 'Never', vxlanMode: vxlanMode || 'Never' },
  };
}

async function storedPools(datastore: Datastore): Promise<IPPool[]> {
  const { items } = await datastore.list({ kind: 'IPPool' });
  return items.map((kv) => kv.value);
}

/**
 * The pool client's hooks. Create: validate against the stored pools, store with Calico's defaults
 * (ipipMode and vxlanMode `Never` included) and an `Allocatable=True` condition as Calico's pool
 * controller sets it (the pool has cleared the overlap check; transition time in whole seconds). Update: CIDR and block size are immutable, status is kept as stored, and the overlap
 * check runs again only when the update enables a disabled pool (Calico skips it on update, which
 * would let a disabled overlapping pool be switched on). Delete: disable, release affinities,
 * remove. Reads apply defaults.
 */
export function createPoolHooks(options: PoolHooksOptions): ResourceHooks<IPPool> {
  const { datastore } = options;
  const now = (): string => goTimeFromMs(options.clock ? options.clock.now() : Date.now());
  return {
    async forCreate(pool) {
      const valid = withEncapDefaults(validatePool(pool, await storedPools(datastore)));
      const allocatable: Condition = {
        type: 'Allocatable',
        status: 'True',
        reason: 'OK',
        message: 'IPPool is available for IP allocation.',
        lastTransitionTime: now(),
      };
      const others = (pool.status?.conditions ?? []).filter((c) => c.type !== 'Allocatable');
      return { ...valid, status: { ...pool.status, conditions: [...others, allocatable] } };
    },
    async forUpdate(current, next) {
      // A malformed pool (no spec, no CIDR) is refused as such before it is compared.
      validatePool(next, []);
      validatePoolUpdate(current, next);
      const enabling = current.spec.disabled === true && next.spec.disabled !== true;
      const valid = withEncapDefaults(
        validatePool(next, enabling ? await storedPools(datastore) : []),
      );
      const { status: _ignored, ...rest } = valid;
      return current.status === undefined ? rest : { ...rest, status: current.status };
    },
    present: (pool) => withEncapDefaults(withPoolDefaults(pool)),
    async beforeDelete(kv: KVPair) {
      const pool = kv.value as IPPool;
      if (pool.spec.disabled !== true) {
        const disabled: IPPool = { ...pool, spec: { ...pool.spec, disabled: true } };
        await datastore.update({
          key: { kind: 'IPPool', name: pool.metadata.name },
          value: disabled,
          revision: kv.revision,
        });
      }
      await options.releasePoolAffinities?.(pool.spec.cidr);
    },
  };
}
