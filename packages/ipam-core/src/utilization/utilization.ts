import {
  attributeBlockToPool,
  cidrSize,
  countPoolSpace,
  createAddressFilter,
  formatCidr,
  nthAddress,
  numReservedIpsInCidr as reservedInCidr,
  parseCidr,
  parseReservedCidrs,
} from '@netledger/accounting';
import type { AddressFilter, Cidr } from '@netledger/accounting';
import { IpamError } from '../errors.js';
import type { AllocationBlock } from '../model/block.js';
import type { IPPool, IPReservation } from '../model/resources.js';
import { poolCidrOf, tryParsePoolCidr } from '../pools/pool-cidr.js';
import { toCount } from './count.js';
import type { Count } from './count.js';

/** Address counts of one allocation block. */
interface BlockUtilization {
  readonly cidr: string;
  readonly capacity: Count;
  /** Capacity less the unallocated ordinals: cooldown and host-reserved addresses are in use. */
  readonly inUse: Count;
  /** Addresses an IPReservation covers, allocated or not. */
  readonly reserved: Count;
  /** Unallocated addresses not reserved: the only count that says what can still be handed out. */
  readonly available: Count;
}

/** Address counts of one pool, over its whole CIDR, and of each of its blocks. */
export interface PoolUtilization extends BlockUtilization {
  readonly name: string;
  readonly blocks: BlockUtilization[];
}

/** Name of the pseudo-pools that collect blocks no pool contains. */
const ORPHANED_BLOCKS_NAME = 'orphaned allocation blocks';

/** Input of {@link computeUtilization}. */
export interface UtilizationInput {
  /** Every pool (defaulted), in list order: a block goes to the first pool it overlaps. */
  readonly pools: readonly IPPool[];
  readonly blocks: readonly AllocationBlock[];
  readonly reservations: readonly IPReservation[];
  /** Pool names or CIDRs to report; empty or absent: every pool, then the orphaned blocks. */
  readonly wanted?: readonly string[];
}

/** The reserved CIDRs of the reservations, as allocation reads them (bad entries skipped). */
function reservedCidrs(reservations: readonly IPReservation[]): Cidr[] {
  return parseReservedCidrs(reservations.flatMap((r) => r.spec.reservedCIDRs)).cidrs;
}

/** The reserved CIDRs, and the same as a filter. */
interface Reserved {
  readonly cidrs: readonly Cidr[];
  readonly filter: AddressFilter;
}

function blockUtilization(
  block: AllocationBlock,
  cidr: Cidr,
  reserved: Reserved,
): { row: BlockUtilization; inUse: bigint; available: bigint } {
  const { filter } = reserved;
  const capacity = cidrSize(cidr);
  const inUse = capacity - BigInt(block.unallocated.length);
  let available: bigint;
  if (!filter.matchesSome(cidr)) available = BigInt(block.unallocated.length);
  else if (filter.matchesWholeCidr(cidr)) available = 0n;
  else {
    available = BigInt(
      block.unallocated.filter((ord) => !filter.matchesIp(nthAddress(cidr, ord))).length,
    );
  }
  const row: BlockUtilization = {
    cidr: formatCidr(cidr),
    capacity: toCount(capacity),
    inUse: toCount(inUse),
    reserved: toCount(reservedInCidr(cidr, reserved.cidrs)),
    available: toCount(available),
  };
  return { row, inUse, available };
}

function isWanted(pool: IPPool, cidr: Cidr, wanted: readonly string[]): boolean {
  return wanted.some((w) => {
    if (w === pool.metadata.name || w === pool.spec.cidr) return true;
    const asCidr = w.includes('/') ? tryParsePoolCidr(w) : undefined;
    return asCidr !== undefined && formatCidr(asCidr) === formatCidr(cidr);
  });
}

interface Slot {
  readonly name: string;
  readonly cidr: Cidr;
  readonly orphan: boolean;
  readonly blocks: { row: BlockUtilization; cidr: Cidr; inUse: bigint; available: bigint }[];
}

/**
 * Calico's `GetUtilization` as a pure function. Each block is attributed to the first wanted pool
 * (in list order) it overlaps; a block reports capacity, inUse (capacity less unallocated),
 * reserved (reserved addresses in it) and available (unallocated and unreserved; 0 when
 * reservations cover the whole block). A pool reports its whole CIDR: capacity and reserved from
 * set arithmetic, inUse summed over its blocks, available = its blocks' available plus the
 * unreserved space outside its blocks. When every pool is wanted, blocks no pool holds are
 * reported last under `orphaned allocation blocks`, IPv4 as `0.0.0.0/0` then IPv6 as `::/0`
 * (Calico drops IPv6 orphans; fixed here), with zero totals. Counts are exact.
 */
export function computeUtilization(input: UtilizationInput): PoolUtilization[] {
  const wanted = input.wanted ?? [];
  const all = wanted.length === 0;
  const slots: Slot[] = [];
  for (const pool of input.pools) {
    const cidr = poolCidrOf(pool);
    if (cidr && (all || isWanted(pool, cidr, wanted))) {
      slots.push({ name: pool.metadata.name, cidr, orphan: false, blocks: [] });
    }
  }
  if (all) {
    for (const text of ['0.0.0.0/0', '::/0']) {
      slots.push({ name: ORPHANED_BLOCKS_NAME, cidr: parseCidr(text), orphan: true, blocks: [] });
    }
  }
  const reservations = reservedCidrs(input.reservations);
  const filter = createAddressFilter(reservations);
  const reserved = { cidrs: reservations, filter };
  for (const block of input.blocks) {
    const cidr = tryParsePoolCidr(block.cidr);
    const slot = cidr && attributeBlockToPool(cidr, slots);
    if (cidr && slot) slot.blocks.push({ cidr, ...blockUtilization(block, cidr, reserved) });
  }
  return slots.map((slot) => {
    const blocks = slot.blocks.map((b) => b.row);
    if (slot.orphan) {
      return {
        name: slot.name,
        cidr: formatCidr(slot.cidr),
        capacity: 0,
        inUse: 0,
        reserved: 0,
        available: 0,
        blocks,
      };
    }
    const space = countPoolSpace({
      pool: slot.cidr,
      reservations,
      blocks: slot.blocks.map((b) => b.cidr),
    });
    const inUse = slot.blocks.reduce((sum, b) => sum + b.inUse, 0n);
    const available = slot.blocks.reduce(
      (sum, b) => sum + b.available,
      space.availableOutsideBlocks,
    );
    return {
      name: slot.name,
      cidr: formatCidr(slot.cidr),
      capacity: toCount(space.capacity),
      inUse: toCount(inUse),
      reserved: toCount(space.reserved),
      available: toCount(available),
      blocks,
    };
  });
}

/**
 * How many addresses of `cidr` the reservations cover, allocated or not, overlapping entries
 * counted once (Calico's `NumReservedIPsInCIDR`; exact where Calico saturates). A malformed
 * `cidr` throws `InvalidArgument`; malformed reservation entries are skipped.
 */
export function numReservedIpsInCidr(cidr: string, reservations: readonly IPReservation[]): Count {
  const parsed = tryParsePoolCidr(cidr);
  if (!parsed) throw new IpamError('InvalidArgument', `invalid CIDR ${JSON.stringify(cidr)}`);
  return toCount(reservedInCidr(parsed, reservedCidrs(reservations)));
}
