import { parseCidr, parseIp } from '@netledger/accounting';
import { IpamError } from '../errors.js';
import type { IPReservation } from '../model/resources.js';
import { validateResourceName } from '../model/resource-name.js';

function entryProblem(entry: unknown): string | undefined {
  if (typeof entry !== 'string') return 'is not a string';
  try {
    if (entry.includes('/')) parseCidr(entry);
    else parseIp(entry);
    return undefined;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

/**
 * Validates an IPReservation before it is stored: a DNS-1123 name, and `spec.reservedCIDRs` a
 * list whose every entry is a strictly masked CIDR or a bare address (no whitespace, no host
 * bits). Throws `InvalidArgument` naming the first bad entry; returns the reservation unchanged.
 */
export function validateReservation(r: IPReservation): IPReservation {
  const name = validateResourceName('IPReservation', r.metadata?.name);
  const entries: unknown = r.spec?.reservedCIDRs;
  if (!Array.isArray(entries)) {
    throw new IpamError(
      'InvalidArgument',
      `IPReservation ${name}: spec.reservedCIDRs must be a list`,
      {
        identifier: name,
      },
    );
  }
  entries.forEach((entry: unknown, i) => {
    const problem = entryProblem(entry);
    if (problem !== undefined) {
      throw new IpamError(
        'InvalidArgument',
        `IPReservation ${name}: reservedCIDRs[${i}] ${JSON.stringify(entry)} is not a CIDR or IP address (${problem})`,
        { identifier: name },
      );
    }
  });
  return r;
}
