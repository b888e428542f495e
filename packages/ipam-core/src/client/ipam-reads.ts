import type { AddressFilter } from '@netledger/accounting';
import { createAddressFilter, parseReservedCidrs } from '@netledger/accounting';
import { DEFAULT_IPAM_CONFIG, ipamConfigFromStored } from '../config/ipam-config.js';
import type { IpamConfig } from '../config/ipam-config.js';
import type { IPPool, IPReservation } from '../model/resources.js';
import { withPoolDefaults } from '../pools/pool-defaults.js';
import type { IpamContext } from './ipam-context.js';

/** Every pool, defaults applied, in name order. */
export async function loadPools(ctx: IpamContext): Promise<IPPool[]> {
  const { items } = await ctx.ds.list({ kind: 'IPPool' });
  return items.map((kv) => withPoolDefaults(kv.value));
}

/** Every reservation resource. */
export async function loadReservationResources(ctx: IpamContext): Promise<IPReservation[]> {
  return (await ctx.ds.list({ kind: 'IPReservation' })).items.map((kv) => kv.value);
}

/** The reserved addresses of `reservations` as one filter (malformed entries are skipped, as in Calico). */
export function reservationFilter(reservations: readonly IPReservation[]): AddressFilter {
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
  const [stored] = (await ctx.ds.list({ kind: 'IPAMConfig' })).items;
  return stored ? ipamConfigFromStored(stored.value) : { ...DEFAULT_IPAM_CONFIG };
}
