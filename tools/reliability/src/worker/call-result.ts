import { isIpamError } from '@netledger/ipam-core';

/** The outcome of one call a host makes: a plugin run or a library call. */
export interface CallResult {
  readonly ok: boolean;
  readonly ips?: string[];
  readonly code?: string;
  readonly message?: string;
}

/** `10.0.0.1/32` → `10.0.0.1`. */
export function bareAddress(cidr: string): string {
  return cidr.split('/')[0]!;
}

/**
 * Runs a library call: ok with the addresses it returns, or failed with the code and message of
 * the IpamError it throws. Any other error is rethrown (a bug in the suite, not a result).
 */
export async function libCall(call: () => Promise<string[] | undefined>): Promise<CallResult> {
  try {
    return { ok: true, ips: (await call()) ?? [] };
  } catch (e) {
    if (!isIpamError(e)) throw e;
    return { ok: false, code: e.code, message: e.message };
  }
}
