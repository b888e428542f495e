import type {
  AttributeOwner,
  OwnerAttributePreconditions,
  OwnerAttributeUpdates,
} from '../block/owner-attributes.js';
import type { ReleaseOptions } from '../block/block-release.js';
import type { IpamConfig } from '../config/ipam-config.js';
import type { Datastore } from '../datastore/datastore.js';
import { IpamError } from '../errors.js';
import type { AllocationAttribute } from '../model/block.js';
import type { IPPool, IPReservation, Node } from '../model/resources.js';
import type { ResourceClient } from '../resources/resource-client.js';
import { createResourceClients } from '../resources/resource-client.js';
import type { Count } from '../utilization/count.js';
import type { PoolUtilization } from '../utilization/utilization.js';
import { numReservedIpsInCidr } from '../utilization/utilization.js';
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
import { affinityFor } from './auto-assign.js';
import { autoAssignForHost } from './auto-assign-for-host.js';
import type { Clock, Random } from './clock.js';
import { systemClock, systemRandom } from './clock.js';
import { ensureBlock } from './ensure-block.js';
import { garbageCollectColdIps } from './garbage-collect-cold-ips.js';
import { getUtilization } from './get-utilization.js';
import type { BlockArgs } from './ensure-block.js';
import type { AffinityConfig, IpamContext } from './ipam-context.js';
import type { IpamReporter } from './ipam-report.js';
import { setIpamConfig } from './ipam-config-operations.js';
import { loadConfig } from './ipam-reads.js';
import { ipsByHandle } from './ips-by-handle.js';
import { createKeyedMutex } from './keyed-mutex.js';
import { getAssignmentAttributes, moveIpToHandle, setOwnerAttributes } from './owner-operations.js';
import { releaseByHandle } from './release-by-handle.js';
import type { ReleaseResult } from './release-ips.js';
import { releaseIps } from './release-ips.js';

/**
 * The IPAM client: Calico's `ipam.Interface` over a Datastore. Every write is a compare-and-swap,
 * retried on conflict (at most 100 times, then `MaxRetries`); transient errors never reach
 * callers. Errors are `IpamError`s: match on `code`. A store that cannot be reached fails
 * `Unavailable`, and a write failing so may or may not have been applied.
 */
export interface IpamClient {
  /** IP pools, with Calico's validation and defaults (block size 26/122, all uses, all nodes). */
  readonly pools: ResourceClient<IPPool>;
  /** Calico nodes (a Kubernetes Node's Calico data on the Kubernetes store). */
  readonly nodes: ResourceClient<Node>;
  /** Reserved CIDRs: never allocated, and counted as reserved by `getUtilization`. */
  readonly reservations: ResourceClient<IPReservation>;
  /**
   * Assigns `num4` IPv4 and `num6` IPv6 addresses to `hostname` (and to `handleId`, counted
   * before each block write so a crash can only over-count): from the host's affine blocks,
   * then new blocks it claims (up to `maxBlocksPerHost`), then, unless affinity is strict,
   * borrowed from other hosts' blocks. Addresses carry their block's mask. A short result is not
   * an error: `msgs` says why (`partialFulfillmentError` gives Calico's message). Fails
   * `InvalidArgument`/`UseRequired` before writing anything for bad arguments, and `BlockLimit`
   * with what was assigned in `error.partial` when a claim past the cap was needed.
   */
  autoAssign(a: AutoAssignArgs): Promise<{ v4: IpamAssignments; v6: IpamAssignments }>;
  /**
   * Assigns one specific address, claiming its block for the host if no block holds it yet.
   * `AlreadyExists` if it is allocated or cooling down (except to the same capped handle);
   * `InvalidArgument` outside every enabled pool or when the pool does not allow `intendedUse`.
   */
  assignIp(a: AssignIpArgs): Promise<void>;
  /**
   * Releases addresses, one compare-and-swap per block (blocks in parallel); a block left empty
   * and unaffine is deleted. With `handle`/`sequenceNumber`, an address that changed owner since
   * is not released: `BadHandle`/`BadSequenceNumber` reject that block's batch, and the others'
   * outcome is in `error.partial`. Addresses not allocated come back in `unallocated`.
   */
  releaseIps(o: readonly ReleaseOptions[]): Promise<ReleaseResult>;
  /**
   * Releases every address of a handle (into cooldown), block by block, then deletes the handle.
   * `DoesNotExist` if there is no such handle. Safe to repeat after a partial failure.
   */
  releaseByHandle(handleId: string): Promise<void>;
  /** The addresses a handle holds (through its block list); `DoesNotExist` without the handle. */
  ipsByHandle(handleId: string): Promise<string[]>;
  /**
   * The attributes (handle, owners) of an allocated address. `DoesNotExist` if it is not
   * allocated or outside every pool, `IpInCooldown` while it cools down.
   */
  getAssignmentAttributes(ip: string): Promise<AllocationAttribute>;
  /**
   * Replaces an address's active/alternate owner attributes in one block write (KubeVirt live
   * migration). `DoesNotExist` if it is not allocated, `InvalidArgument` if its handle is not
   * `handleId` or the options contradict each other, `PreconditionFailed` if an expected owner
   * is not the one found; nothing is written then.
   */
  setOwnerAttributes(
    ip: string,
    handleId: string,
    u: OwnerAttributeUpdates,
    p?: OwnerAttributePreconditions,
  ): Promise<void>;
  /**
   * Re-points an allocated address from `handleId` to `newHandleId` in one block write: it is
   * never unowned and never cools down. The new handle is counted before the write, the old one
   * uncounted after it. `DoesNotExist` if it is not allocated, `InvalidArgument` if it is not
   * `handleId`'s or `expectedOwner` names no pod, `PreconditionFailed` if its owner is another.
   */
  moveIpToHandle(a: {
    ip: string;
    handleId: string;
    newHandleId: string;
    expectedOwner: AttributeOwner;
  }): Promise<void>;
  /**
   * Claims every block of `cidr` (inside one pool) for a host. `claimed` lists the blocks the host
   * now holds (including ones it already held), `failed` those another host holds. Idempotent.
   */
  claimAffinity(cidr: string, a: AffinityConfig): Promise<{ claimed: string[]; failed: string[] }>;
  /**
   * Releases a host's affinity for every block of `cidr`; with `mustBeEmpty`, `BlockNotEmpty`
   * stops at the first block that still holds addresses (blocks before it stay released).
   */
  releaseAffinity(cidr: string, host: string, o: { mustBeEmpty: boolean }): Promise<void>;
  /**
   * Releases every affinity of a host, IPv4 then IPv6. Carries on past a block it cannot release
   * (e.g. `BlockNotEmpty`) and throws the last such error at the end.
   */
  releaseHostAffinities(a: AffinityConfig, o: { mustBeEmpty: boolean }): Promise<void>;
  /** Releases every affinity of every host for blocks inside a pool, empty or not (pool deletion). */
  releasePoolAffinities(poolCidr: string): Promise<void>;
  /**
   * Releases the affinity of one block, whoever holds it; nothing to do for an unaffine block.
   * With `mustBeEmpty`, `BlockNotEmpty` if it holds addresses.
   */
  releaseBlockAffinity(blockCidr: string, o: { mustBeEmpty: boolean }): Promise<void>;
  /** Releases all of a host's affinities (empty or not) and deletes its legacy IPAM host object. */
  removeIpamHost(a: AffinityConfig): Promise<void>;
  /**
   * Makes sure the host has a block for each family whose reservation `a` gives (Windows:
   * addresses reserved at both ends) and returns its CIDR; a second call returns the same block.
   * The block cap does not apply.
   */
  ensureBlock(a: BlockArgs): Promise<{ v4?: string; v6?: string }>;
  /**
   * The IPAM configuration: defaults when none is stored; `ConfigConflict` if the stored one breaks
   * a cross-field rule.
   */
  getIpamConfig(): Promise<IpamConfig>;
  /**
   * Stores the IPAM configuration after checking bounds and cross-field rules (`InvalidArgument`,
   * `ConfigConflict`); one compare-and-swap, nothing written when it is unchanged.
   */
  setIpamConfig(c: IpamConfig): Promise<void>;
  /**
   * Capacity, in use, reserved and available addresses per pool (optionally only `pools`, by
   * name or CIDR) and per block, as set arithmetic over reservations and blocks; blocks outside
   * every pool are reported under orphaned-blocks entries (IPv6 included, unlike Calico).
   */
  getUtilization(a?: { pools?: readonly string[] }): Promise<PoolUtilization[]>;
  /** How many addresses of `cidr` the given reservations cover (overlaps counted once). Pure. */
  numReservedIpsInCidr(cidr: string, reservations: readonly IPReservation[]): Count;
  /**
   * Deallocates a block's addresses whose cooldown has elapsed, in one compare-and-swap (the
   * backstop for blocks nothing writes). Returns whether it changed the block; `DoesNotExist`
   * when the block is gone.
   */
  garbageCollectColdIps(blockCidr: string): Promise<boolean>;
  /**
   * Adds the host, type and version labels to a host's affinities written without them, on stores
   * that index affinities by label (Kubernetes); nothing elsewhere.
   */
  upgradeHost(node: string): Promise<void>;
}

/** Options of {@link createIpamClient}. */
export interface IpamClientOptions {
  readonly datastore: Datastore;
  readonly clock?: Clock;
  readonly random?: Random;
  /**
   * Told of every best-effort step that failed without failing the operation (a handle not
   * decremented after a release, a pending affinity not deleted after a lost claim, ...), as
   * Calico logs them. Without it nothing is reported: the client writes no logs of its own.
   */
  readonly report?: IpamReporter;
}

/**
 * Creates an IPAM client. Requests for one host are serialised within the process (a daemon
 * serving a burst of pods queues them instead of racing itself for the same block); releases
 * are serialised per block. The client caches nothing: a long-lived process that wants its
 * reads served from memory puts a watch-fed mirror in front of the store
 * (`@netledger/ipam-core/adapter`'s `createMirroredDatastore`). A best-effort step that fails
 * (a handle not decremented after its addresses were released, ...) does not fail the operation:
 * it goes to `options.report`, and nowhere without one.
 */
export function createIpamClient(options: IpamClientOptions): IpamClient {
  const ctx: IpamContext = {
    ds: options.datastore,
    clock: options.clock ?? systemClock,
    random: options.random ?? systemRandom,
    ...(options.report && { report: options.report }),
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

  return {
    ...resources,
    autoAssign: (a) => autoAssignForHost(ctx, a, hostLocks),
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
    // eslint-disable-next-line @typescript-eslint/max-params -- the public signature follows Calico's SetOwnerAttributes
    setOwnerAttributes: (ip, handleId, updates, preconditions) =>
      setOwnerAttributes(ctx, { ip, handleId, updates, ...(preconditions && { preconditions }) }),
    moveIpToHandle: (a) => moveIpToHandle(ctx, a),
    claimAffinity: (cidr, a) => claimAffinity(ctx, cidr, a),
    releaseAffinity: (cidr, host, o) =>
      releaseAffinity(ctx, { cidr, host, mustBeEmpty: o.mustBeEmpty }),
    releaseHostAffinities: (a, o) => releaseHostAffinities(ctx, a, o),
    releasePoolAffinities: (cidr) => releasePoolAffinities(ctx, cidr),
    releaseBlockAffinity: (cidr, o) => releaseBlockAffinityOf(ctx, cidr, o),
    removeIpamHost: (a) => removeIpamHost(ctx, a),
    ensureBlock: (a) => hostLocks.run(`host:${a.hostname}`, () => ensureBlock(ctx, a)),
    getIpamConfig: () => loadConfig(ctx),
    setIpamConfig: (c) => setIpamConfig(ctx, c),
    getUtilization: (a) => getUtilization(ctx, a),
    numReservedIpsInCidr: (cidr, reservations) => numReservedIpsInCidr(cidr, reservations),
    garbageCollectColdIps: (blockCidr) => garbageCollectColdIps(ctx, blockCidr, blockLocks),
    upgradeHost: async (node) => {
      await ctx.ds.upgradeAffinityLabels?.(node);
    },
  };
}
