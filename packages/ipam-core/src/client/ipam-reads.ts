import type { AddressFilter } from '@netledger/accounting';
import { createAddressFilter, parseReservedCidrs } from '@netledger/accounting';
import { DEFAULT_IPAM_CONFIG, ipamConfigFromStored } from '../config/ipam-config.js';
import type { IpamConfig } from '../config/ipam-config.js';
import type { IPPool, IPReservation } from '../model/resources.js';
import { withPoolDefaults } from '../pools/pool-defaults.js';
import type { KVPair, ListResult } from '../datastore/datastore.js';
import type { ListOptions } from '../model/keys.js';
import type { AffinityConfig, IpamContext } from './ipam-context.js';

/** Every pool, defaults applied, in name order. */
export async function loadPools(ctx: IpamContext): Promise<IPPool[]> {
  return poolsOf(await ctx.ds.list({ kind: 'IPPool' }));
}

const poolsOf = (r: ListResult): IPPool[] =>
  (r.items as KVPair<'IPPool'>[]).map((kv) => withPoolDefaults(kv.value));

/** What every assignment reads first. */
export interface AssignInputs {
  readonly pools: IPPool[];
  readonly reservations: AddressFilter;
  readonly config: IpamConfig;
  /** The host's affinities of the given type, both IP versions, in store order. */
  readonly affinities: KVPair<'BlockAffinity'>[];
}

/**
 * Reads pools, reservations, config and the host's affinities together: one round trip and one
 * store revision where the store offers `listMany`, else four lists in parallel.
 */
export async function loadAssignInputs(
  ctx: IpamContext,
  affinity: AffinityConfig,
): Promise<AssignInputs> {
  const options: ListOptions[] = [
    { kind: 'IPPool' },
    { kind: 'IPReservation' },
    { kind: 'IPAMConfig' },
    { kind: 'BlockAffinity', host: affinity.host, affinityType: affinity.affinityType },
  ];
  const [pools, reservations, config, affinities] = ctx.ds.listMany
    ? await ctx.ds.listMany(options)
    : await Promise.all(options.map((o) => ctx.ds.list(o)));
  return {
    pools: poolsOf(pools!),
    reservations: reservationFilter(
      (reservations!.items as KVPair<'IPReservation'>[]).map((kv) => kv.value),
    ),
    config: configOf(config!),
    affinities: affinities!.items as KVPair<'BlockAffinity'>[],
  };
}

/** Every reservation resource. */
export async function loadReservationResources(ctx: IpamContext): Promise<IPReservation[]> {
  return (await ctx.ds.list({ kind: 'IPReservation' })).items.map((kv) => kv.value);
}

/** The reserved addresses of `reservations` as one filter (malformed entries are skipped, as in Calico). */
function reservationFilter(reservations: readonly IPReservation[]): AddressFilter {
  return createAddressFilter(
    parseReservedCidrs(reservations.flatMap((r) => r.spec.reservedCIDRs)).cidrs,
  );
}

/** The reservation filter, read from the store. */
export async function loadReservations(ctx: IpamContext): Promise<AddressFilter> {
  return reservationFilter(await loadReservationResources(ctx));
}

/**
 * The IPAM configuration: the defaults when none is stored (not persisted), else the stored one,
 * refused (`ConfigConflict`) if it breaks a cross-field rule.
 */
export async function loadConfig(ctx: IpamContext): Promise<IpamConfig> {
  // A list, not a get: the config is usually absent, and a get would throw on every request.
  return configOf(await ctx.ds.list({ kind: 'IPAMConfig' }));
}

function configOf(r: ListResult): IpamConfig {
  const stored = r.items[0] as KVPair<'IPAMConfig'> | undefined;
  return stored ? ipamConfigFromStored(stored.value) : { ...DEFAULT_IPAM_CONFIG };
}
