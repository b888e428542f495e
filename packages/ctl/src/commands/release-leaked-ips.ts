import { isIpamError } from '@netledger/ipam-core';
import type { IpamClient, ReleaseOptions } from '@netledger/ipam-core';

/** What {@link releaseLeakedIps} did: its lines, what it released, and whether it failed. */
export interface LeakedIpsRelease {
  readonly lines: string[];
  readonly released: ReleaseOptions[];
  readonly failed: boolean;
}

/**
 * Releases the merged leaked addresses in one call, each guarded by its handle and sequence
 * number. An error (an address reallocated since the report fails its block's batch) is
 * reported in calicoctl's words with what was released before it, not retried nor thrown.
 */
export async function releaseLeakedIps(
  ipam: IpamClient,
  ips: readonly ReleaseOptions[],
): Promise<LeakedIpsRelease> {
  if (ips.length === 0) {
    return {
      lines: ["Report didn't contain any leaked IPs to clean up."],
      released: [],
      failed: false,
    };
  }
  const lines = [`Releasing ${ips.length} old IPs...`];
  try {
    const result = await ipam.releaseIps([...ips]);
    lines.push(`Released ${result.released.length} IPs successfully`);
    if (result.unallocated.length > 0) {
      lines.push(
        `${result.unallocated.length} addresses marked as leaked in the report had already been cleaned up.`,
      );
    }
    return { lines, released: result.released, failed: false };
  } catch (e) {
    const partial = isIpamError(e)
      ? (e.partial as { released?: ReleaseOptions[] } | undefined)
      : undefined;
    lines.push(
      `An error occurred while releasing some IPs: ${(e as Error).message}.  Problems are often caused by an out-of-date IPAM report.  Try regenerating the IPAM report and retry.`,
    );
    return { lines, released: partial?.released ?? [], failed: true };
  }
}
