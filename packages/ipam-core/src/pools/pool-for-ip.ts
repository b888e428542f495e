import { cidrContainsIp, formatCidr, maskIp, parseIp } from '@netledger/accounting';
import type { IpAddress } from '@netledger/accounting';
import { IpamError } from '../errors.js';
import type { IPPool } from '../model/resources.js';
import { blockSizeOf, poolCidrOf } from './pool-cidr.js';

function parseAddress(ip: string): IpAddress {
  try {
    return parseIp(ip);
  } catch (e) {
    throw new IpamError('InvalidArgument', `invalid IP address ${JSON.stringify(ip)}`, {
      identifier: ip,
      cause: e,
    });
  }
}

/**
 * The first pool, in the given order, whose CIDR contains `ip` (Calico's `getPoolForIP`), or
 * `undefined`. Pools with malformed CIDRs are skipped. A malformed `ip` throws `InvalidArgument`.
 */
export function poolForIp(ip: string, pools: readonly IPPool[]): IPPool | undefined {
  const address = parseAddress(ip);
  return pools.find((p) => {
    const cidr = poolCidrOf(p);
    return cidr !== undefined && cidrContainsIp(cidr, address);
  });
}

/**
 * The canonical CIDR of the block of `pool` that holds `ip`: the address masked to the pool's
 * block size (e.g. `10.0.0.64/26`). Throws `InvalidArgument` for a malformed `ip`, or one of the
 * other family or outside the pool.
 */
export function blockCidrForIp(ip: string, pool: IPPool): string {
  const address = parseAddress(ip);
  const cidr = poolCidrOf(pool);
  if (!cidr || !cidrContainsIp(cidr, address)) {
    throw new IpamError(
      'InvalidArgument',
      `${ip} is not in IPPool ${pool.metadata.name} (${pool.spec.cidr})`,
      {
        identifier: ip,
      },
    );
  }
  return formatCidr(maskIp(address, blockSizeOf(pool, address.version)));
}
