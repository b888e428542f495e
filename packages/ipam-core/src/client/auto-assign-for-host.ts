import { IpamError, isIpamError } from '../errors.js';
import type { AutoAssignArgs, IpamAssignments } from './assignments.js';
import { emptyAssignments } from './assignments.js';
import { affinityFor, autoAssignVersion } from './auto-assign.js';
import { checkPoolFamily, checkRequestedPools } from './check-pool-family.js';
import type { AffinityConfig, IpamContext } from './ipam-context.js';
import type { AssignInputs } from './ipam-reads.js';
import { loadAssignInputs } from './ipam-reads.js';
import type { KeyedMutex } from './keyed-mutex.js';

/** The addresses one `autoAssign` call gave, per family. */
interface BothFamilies {
  v4: IpamAssignments;
  v6: IpamAssignments;
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

/** Checks what can be checked without the store; returns the counts asked for. */
function checkAutoAssignArgs(a: AutoAssignArgs): { num4: number; num6: number } {
  const num4 = nonNegativeInt(a.num4, 'num4');
  const num6 = nonNegativeInt(a.num6, 'num6');
  if (!a.hostname) throw new IpamError('InvalidArgument', 'hostname is required');
  if (!a.intendedUse)
    throw new IpamError('UseRequired', 'must specify the intended use when assigning an IP');
  // Both families' pool lists are checked before anything is allocated: CIDRs here, and
  // names (which need the pools) once the pools are loaded.
  if (num4 > 0) checkPoolFamily(4, a.ipv4Pools);
  if (num6 > 0) checkPoolFamily(6, a.ipv6Pools);
  return { num4, num6 };
}

/** Checks the requested pools by name, now that the pools are loaded. */
function checkRequestedPoolNames(
  a: AutoAssignArgs,
  counts: { num4: number; num6: number },
  inputs: AssignInputs,
): void {
  checkRequestedPools(inputs.pools, [
    ...(counts.num4 > 0
      ? [{ version: 4 as const, requested: a.ipv4Pools, hostReserved: a.hostReservedAttrIPv4s }]
      : []),
    ...(counts.num6 > 0
      ? [{ version: 6 as const, requested: a.ipv6Pools, hostReserved: a.hostReservedAttrIPv6s }]
      : []),
  ]);
}

/** Assigns one family's addresses from the inputs read once for the whole request. */
function assignFamily(
  ctx: IpamContext,
  request: { a: AutoAssignArgs; version: 4 | 6; num: number; inputs: AssignInputs },
): Promise<IpamAssignments> {
  const { a, version, num, inputs } = request;
  const requested = version === 4 ? a.ipv4Pools : a.ipv6Pools;
  const hostReserved = version === 4 ? a.hostReservedAttrIPv4s : a.hostReservedAttrIPv6s;
  return autoAssignVersion(ctx, {
    version,
    num,
    args: a,
    ...(requested && requested.length > 0 && { requestedPools: requested }),
    ...(hostReserved && { hostReserved }),
    ...inputs,
  });
}

/** IPv4 then IPv6; an `IpamError` carries both families' assignments so far in `partial`. */
async function assignBothFamilies(
  ctx: IpamContext,
  a: AutoAssignArgs,
  counts: { num4: number; num6: number; affinity: AffinityConfig },
): Promise<BothFamilies> {
  const inputs = await loadAssignInputs(ctx, counts.affinity);
  checkRequestedPoolNames(a, counts, inputs);
  const done: BothFamilies = {
    v4: emptyAssignments(4, counts.num4),
    v6: emptyAssignments(6, counts.num6),
  };
  for (const version of [4, 6] as const) {
    const num = version === 4 ? counts.num4 : counts.num6;
    if (num === 0) continue;
    const family = version === 4 ? 'v4' : 'v6';
    try {
      done[family] = await assignFamily(ctx, { a, version, num, inputs });
    } catch (e) {
      if (!isIpamError(e)) throw e;
      done[family] = (e.partial as IpamAssignments | undefined) ?? emptyAssignments(version, num);
      throw new IpamError(e.code, e.message, { partial: { ...done }, cause: e });
    }
  }
  return done;
}

/**
 * The client's `autoAssign`: checks the arguments before reading or writing anything, then,
 * holding the host's lock, reads the pools, reservations, config and affinities once and assigns
 * IPv4 then IPv6 addresses. On an `IpamError` mid-way, `error.partial` is `{ v4, v6 }` with what
 * was assigned so far (the failing family's own partial result included). Never throws
 * synchronously: bad arguments reject the promise.
 */
export async function autoAssignForHost(
  ctx: IpamContext,
  a: AutoAssignArgs,
  hostLocks: KeyedMutex,
): Promise<BothFamilies> {
  const counts = checkAutoAssignArgs(a);
  const affinity = affinityFor(a.intendedUse, a.hostname);
  return hostLocks.run(`${affinity.affinityType}:${affinity.host}`, () =>
    assignBothFamilies(ctx, a, { ...counts, affinity }),
  );
}
