import { AccountingError } from './accounting-error.js';
import { maskIp } from './cidr.js';
import type { Cidr } from './cidr.js';
import { formatCidr } from './format-cidr.js';
import { addressBits } from './ip-address.js';
import { tryParseIp } from './parse-ip.js';

/** Options for {@link parseCidr}. */
export interface ParseCidrOptions {
  /** Reject a CIDR with host bits set (default `true`); when `false`, mask them off instead. */
  readonly strict?: boolean;
}

const PREFIX = /^(?:0|[1-9][0-9]{0,2})$/;

/**
 * Parses `address/prefix` strictly (see `parseIp`; the prefix is decimal without leading zeros).
 * Throws `InvalidCidr` on any malformed input, and, unless `strict: false`, when host bits are set.
 */
export function parseCidr(text: string, opts: ParseCidrOptions = {}): Cidr {
  const slash = text.indexOf('/');
  const fail = (why: string): never => {
    throw new AccountingError('InvalidCidr', `invalid CIDR ${JSON.stringify(text)}: ${why}`);
  };
  if (slash < 0) return fail('missing /prefix');
  const ip = tryParseIp(text.slice(0, slash));
  if (ip === undefined) return fail('malformed address');
  const prefixText = text.slice(slash + 1);
  const prefix = Number(prefixText);
  if (!PREFIX.test(prefixText) || prefix > addressBits(ip.version)) {
    return fail(`prefix length must be 0-${addressBits(ip.version)}`);
  }
  const cidr = maskIp(ip, prefix);
  if (cidr.base !== ip.value && opts.strict !== false) {
    return fail(`host bits are set (the network is ${formatCidr(cidr)})`);
  }
  return cidr;
}
