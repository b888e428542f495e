import type {
  AttributeOwner,
  OwnerAttributePreconditions,
  OwnerAttributeUpdates,
} from '../block/owner-attributes.js';
import type { ReleaseOptions } from '../block/block-release.js';
import { garbageCollectBlock } from '../block/garbage-collect.js';
import type { IpamConfig } from '../config/ipam-config.js';
import type { Datastore } from '../datastore/datastore.js';
import { IpamError, isIpamError } from '../errors.js';
import type { AllocationAttribute } from '../model/block.js';
import type { IPPool, IPReservation, Node } from '../model/resources.js';
import type { ResourceClient } from '../resources/resource-client.js';
import { createResourceClients } from '../resources/resource-client.js';
import type { Count } from '../utilization/count.js';
import type { PoolUtilization } from '../utilization/utilization.js';
import { computeUtilization, numReservedIpsInCidr } from '../utilization/utilization.js';
import {
  claimAffinity,
  releaseAffinity,
  releaseBlockAffinityOf,
  releaseHostAffinities,
  releasePoolAffinities,
  removeIpamHost,
} from './affinity-management.js';
import { assignIp } from './assign-ip.js';
import type { AssignIpArgs } from './assign-ip.js';
import type { AutoAssignArgs, IpamAssignments } from './assignments.js';
import { emptyAssignments } from './assignments.js';
import { affinityFor, autoAssignVersion } from './auto-assign.js';
import { createBlockHints } from './block-hints.js';
import { updateBlock } from './block-reader-writer.js';
import { checkPoolFamily, checkRequestedPools } from './check-pool-family.js';
import type { Clock, Random } from './clock.js';
import { systemClock, systemRandom } from './clock.js';
import { ensureBlock } from './ensure-block.js';
import type { BlockArgs } from './ensure-block.js';
import type { AffinityConfig, IpamContext } from './ipam-context.js';
import { setIpamConfig } from './ipam-config-operations.js';
import { loadAssignInputs, loadConfig, loadPools, loadReservationResources } from './ipam-reads.js';
import { ipsByHandle } from './ips-by-handle.js';
import { createKeyedMutex } from './keyed-mutex.js';
import { getAssignmentAttributes, moveIpToHandle, setOwnerAttributes } from './owner-operations.js';
import { releaseByHandle } from './release-by-handle.js';
import type { ReleaseResult } from './release-ips.js';
import { releaseIps } from './release-ips.js';

/** The IPAM client: Calico's `ipam.Interface` over a Datastore. */
export interface IpamClient {
  readonly pools: ResourceClient<IPPool>;
  readonly nodes: ResourceClient<Node>;
  readonly reservations: ResourceClient<IPReservation>;
  autoAssign(a: AutoAssignArgs): Promise<{ v4: IpamAssignments; v6: IpamAssignments }>;
  assignIp(a: AssignIpArgs): Promise<void>;
  releaseIps(o: readonly ReleaseOptions[]): Promise<ReleaseResult>;
  releaseByHandle(handleId: string): Promise<void>;
  ipsByHandle(handleId: string): Promise<string[]>;
  getAssignmentAttributes(ip: string): Promise<AllocationAttribute>;
  setOwnerAttributes(
    ip: string,
    handleId: string,
    u: OwnerAttributeUpdates,
    p?: OwnerAttributePreconditions,
  ): Promise<void>;
  moveIpToHandle(a: {
    ip: string;
    handleId: string;
    newHandleId: string;
    expectedOwner: AttributeOwner;
  }): Promise<void>;
  claimAffinity(cidr: string, a: AffinityConfig): Promise<{ claimed: string[]; failed: string[] }>;
  releaseAffinity(cidr: string, host: string, o: { mustBeEmpty: boolean }): Promise<void>;
  releaseHostAffinities(a: AffinityConfig, o: { mustBeEmpty: boolean }): Promise<void>;
  releasePoolAffinities(poolCidr: string): Promise<void>;
  releaseBlockAffinity(blockCidr: string, o: { mustBeEmpty: boolean }): Promise<void>;
  removeIpamHost(a: AffinityConfig): Promise<void>;
  ensureBlock(a: BlockArgs): Promise<{ v4?: string; v6?: string }>;
  getIpamConfig(): Promise<IpamConfig>;
  setIpamConfig(c: IpamConfig): Promise<void>;
  getUtilization(a?: { pools?: readonly string[] }): Promise<PoolUtilization[]>;
  numReservedIpsInCidr(cidr: string, reservations: readonly IPReservation[]): Count;
  garbageCollectColdIps(blockCidr: string): Promise<boolean>;
  upgradeHost(node: string): Promise<void>;
}

/** Options of {@link createIpamClient}. */
export interface IpamClientOptions {
  readonly datastore: Datastore;
  readonly clock?: Clock;
  readonly random?: Random;
}

const nonNegativeInt = (n: number | undefined, what: string): number => {
  const v = n ?? 0;
  if (!Number.isSafeInteger(v) || v < 0)
    throw new IpamError(
      'InvalidArgument',
      `${what} must be a non-negative integer, got ${String(n)}`,
    );
  return v;
};

/**
 * Creates an IPAM client. Requests for one host are serialised within the process (a daemon
 * serving a burst of pods queues them instead of racing itself for the same block); releases
 * are serialised per block. The client remembers the blocks it last wrote (up to 1,024) and
 * autoAssign writes over them without reading them again; a block changed elsewhere since costs
 * one failed compare-and-swap, then the block is read as usual.
 */
export function createIpamClient(options: IpamClientOptions): IpamClient {
  const ctx: IpamContext = {
    ds: options.datastore,
    clock: options.clock ?? systemClock,
    random: options.random ?? systemRandom,
    blockHints: createBlockHints(),
  };
  const hostLocks = createKeyedMutex();
  const blockLocks = createKeyedMutex();
  // Deleting a pool releases its blocks' affinities first, as Calico's pool client does.
  const resources = createResourceClients({
    datastore: options.datastore,
    clock: ctx.clock,
    random: ctx.random,
    releasePoolAffinities: (cidr) => releasePoolAffinities(ctx, cidr),
  });

  async function autoAssign(
    a: AutoAssignArgs,
  ): Promise<{ v4: IpamAssignments; v6: IpamAssignments }> {
    const num4 = nonNegativeInt(a.num4, 'num4');
    const num6 = nonNegativeInt(a.num6, 'num6');
    if (!a.hostname) throw new IpamError('InvalidArgument', 'hostname is required');
    if (!a.intendedUse)
      throw new IpamError('UseRequired', 'must specify the intended use when assigning an IP');
    // Both families' pool lists are checked before anything is allocated: CIDRs here, and
    // names (which need the pools) once the pools are loaded.
    if (num4 > 0) checkPoolFamily(4, a.ipv4Pools);
    if (num6 > 0) checkPoolFamily(6, a.ipv6Pools);
    const affinity = affinityFor(a.intendedUse, a.hostname);
    return hostLocks.run(`${affinity.affinityType}:${affinity.host}`, async () => {
      const { pools, reservations, config, affinities } = await loadAssignInputs(ctx, affinity);
      checkRequestedPools(pools, [
        ...(num4 > 0
          ? [{ version: 4 as const, requested: a.ipv4Pools, hostReserved: a.hostReservedAttrIPv4s }]
          : []),
        ...(num6 > 0
          ? [{ version: 6 as const, requested: a.ipv6Pools, hostReserved: a.hostReservedAttrIPv6s }]
          : []),
      ]);
      let v4 = emptyAssignments(4, num4);
      let v6 = emptyAssignments(6, num6);
      const run = async (version: 4 | 6, num: number): Promise<IpamAssignments> => {
        try {
          const requested = version === 4 ? a.ipv4Pools : a.ipv6Pools;
          const hostReserved = version === 4 ? a.hostReservedAttrIPv4s : a.hostReservedAttrIPv6s;
          return await autoAssignVersion(ctx, {
            version,
            num,
            args: a,
            ...(requested && requested.length > 0 && { requestedPools: requested }),
            ...(hostReserved && { hostReserved }),
            pools,
            reservations,
            config,
            affinities,
          });
        } catch (e) {
          if (!isIpamError(e)) throw e;
          const partial =
            (e.partial as IpamAssignments | undefined) ?? emptyAssignments(version, num);
          if (version === 4) v4 = partial;
          else v6 = partial;
          throw new IpamError(e.code, e.message, { partial: { v4, v6 }, cause: e });
        }
      };
      if (num4 > 0) v4 = await run(4, num4);
      if (num6 > 0) v6 = await run(6, num6);
      return { v4, v6 };
    });
  }

  return {
    ...resources,
    autoAssign,
    assignIp: (a) => {
      if (!a.hostname)
        return Promise.reject(new IpamError('InvalidArgument', 'hostname is required'));
      const affinity = affinityFor(a.intendedUse ?? 'Workload', a.hostname);
      return hostLocks.run(`${affinity.affinityType}:${affinity.host}`, () => assignIp(ctx, a));
    },
    releaseIps: (o) => releaseIps(ctx, o, blockLocks),
    releaseByHandle: (h) => releaseByHandle(ctx, h, blockLocks),
    ipsByHandle: async (h) => ipsByHandle(ctx, h, (await loadConfig(ctx)).ipCooldownSeconds),
    getAssignmentAttributes: (ip) => getAssignmentAttributes(ctx, ip),
    setOwnerAttributes: (ip, handleId, updates, preconditions) =>
      setOwnerAttributes(ctx, { ip, handleId, updates, ...(preconditions && { preconditions }) }),
    moveIpToHandle: (a) => moveIpToHandle(ctx, a),
    claimAffinity: (cidr, a) => claimAffinity(ctx, cidr, a),
    releaseAffinity: (cidr, host, o) => releaseAffinity(ctx, cidr, host, o),
    releaseHostAffinities: (a, o) => releaseHostAffinities(ctx, a, o),
    releasePoolAffinities: (cidr) => releasePoolAffinities(ctx, cidr),
    releaseBlockAffinity: (cidr, o) => releaseBlockAffinityOf(ctx, cidr, o),
    removeIpamHost: (a) => removeIpamHost(ctx, a),
    ensureBlock: (a) => hostLocks.run(`host:${a.hostname}`, () => ensureBlock(ctx, a)),
    getIpamConfig: () => loadConfig(ctx),
    setIpamConfig: (c) => setIpamConfig(ctx, c),
    getUtilization: async (a) => {
      const [pools, blocks, reservations] = await Promise.all([
        loadPools(ctx),
        ctx.ds.list({ kind: 'IPAMBlock' }),
        loadReservationResources(ctx),
      ]);
      return computeUtilization({
        pools,
        blocks: blocks.items.map((kv) => kv.value),
        reservations,
        ...(a?.pools && { wanted: a.pools }),
      });
    },
    numReservedIpsInCidr: (cidr, reservations) => numReservedIpsInCidr(cidr, reservations),
    garbageCollectColdIps: async (blockCidr) => {
      const config = await loadConfig(ctx);
      return blockLocks.run(blockCidr, async () => {
        const kv = await ctx.ds.get({ kind: 'IPAMBlock', cidr: blockCidr });
        const { block, changed } = garbageCollectBlock(kv.value, {
          nowMs: ctx.clock.now(),
          cooldownSeconds: config.ipCooldownSeconds,
        });
        if (changed) await updateBlock(ctx, kv, block);
        return changed;
      });
    },
    upgradeHost: async (node) => {
      await ctx.ds.upgradeAffinityLabels?.(node);
    },
  };
}
