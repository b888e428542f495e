import { cidrContainsIp, formatCidr, formatIp, maskIp, parseCidr } from '@netledger/accounting';
import type { Cidr, IpAddress } from '@netledger/accounting';
import { isIpamError } from '@netledger/ipam-core';
import type { Datastore, IPPool } from '@netledger/ipam-core';
import { blockAllocations } from '@netledger/ipam-core/block';

/** A live allocation of a reserved address: the address and the handle that holds it. */
export interface ReservedHolder {
  readonly ip: string;
  readonly handle: string | undefined;
}

function poolCidr(pool: IPPool): Cidr | undefined {
  try {
    return parseCidr(pool.spec.cidr, { strict: false });
  } catch {
    return undefined;
  }
}

/**
 * The blocks that can hold `addresses`: each address's block in the first pool containing it,
 * at the pool's block size (26 / 122 when unset), without repeats. An address in no pool needs
 * none: IPAM allocates only inside pools. Pure.
 */
export function blocksHolding(addresses: readonly IpAddress[], pools: readonly IPPool[]): string[] {
  const blocks = new Set<string>();
  for (const ip of addresses) {
    const found = pools
      .map((pool) => ({ pool, cidr: poolCidr(pool) }))
      .find(({ cidr }) => cidr !== undefined && cidrContainsIp(cidr, ip));
    if (found === undefined) continue;
    const size = found.pool.spec.blockSize ?? (ip.version === 4 ? 26 : 122);
    blocks.add(formatCidr(maskIp(ip, size)));
  }
  return [...blocks];
}

/**
 * The first of `addresses` (in their order) that a live allocation holds (one cooling down is
 * not: it frees itself), read from `blocks` (each once, in parallel; a block that does not exist
 * holds nothing), or `undefined` when none is held. Reads only.
 */
export async function findReservedHolder(
  datastore: Datastore,
  { addresses, blocks }: { addresses: readonly IpAddress[]; blocks: readonly string[] },
): Promise<ReservedHolder | undefined> {
  const wanted = new Set(addresses.map(formatIp));
  const held = new Map<string, string | undefined>();
  await Promise.all(
    blocks.map(async (cidr) => {
      let block;
      try {
        block = (await datastore.get({ kind: 'IPAMBlock', cidr })).value;
      } catch (e) {
        if (isIpamError(e, 'DoesNotExist')) return;
        throw e;
      }
      for (const a of blockAllocations(block)) {
        if (!a.coolingDown && wanted.has(a.ip)) held.set(a.ip, a.handle);
      }
    }),
  );
  const ip = addresses.map(formatIp).find((x) => held.has(x));
  return ip === undefined ? undefined : { ip, handle: held.get(ip) };
}
