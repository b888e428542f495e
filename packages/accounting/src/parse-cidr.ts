import { AccountingError } from './accounting-error.js';
import { maskIp } from './cidr.js';
import type { Cidr } from './cidr.js';
import { formatCidr } from './format-cidr.js';
import { addressBits } from './ip-address.js';
import { readIp } from './parse-ip.js';

/** Options for {@link parseCidr}. */
export interface ParseCidrOptions {
  /** Reject a CIDR with host bits set (default `true`); when `false`, mask them off instead. */
  readonly strict?: boolean;
}

const PREFIX = /^(?:0|[1-9][0-9]{0,2})$/;

/** A CIDR text as read, before the strictness check. */
interface ReadCidr {
  readonly cidr: Cidr;
  /** The address had no host bits set. */
  readonly exact: boolean;
}

// The hot paths parse the same few block and pool CIDRs on every call, and `ip-address` costs
// more per parse than a map lookup: keep what was read, by text. Only valid texts are kept; the
// map is emptied when it is full (a cluster has few enough blocks that it rarely is).
const MAX_KEPT = 16_384;
const kept = new Map<string, ReadCidr>();

/**
 * Parses `address/prefix` strictly (the address as `parseIp` does, through `ip-address`; the
 * prefix is decimal without leading zeros). Throws `InvalidCidr` on any malformed input, and,
 * unless `strict: false`, when host bits are set. The result is frozen (it may be shared).
 */
export function parseCidr(text: string, opts: ParseCidrOptions = {}): Cidr {
  let read = kept.get(text);
  if (read === undefined) {
    read = readCidr(text);
    if (kept.size >= MAX_KEPT) kept.clear();
    kept.set(text, read);
  }
  if (!read.exact && opts.strict !== false) {
    throw invalidCidr(text, `host bits are set (the network is ${formatCidr(read.cidr)})`);
  }
  return read.cidr;
}

function invalidCidr(text: string, why: string): AccountingError {
  return new AccountingError('InvalidCidr', `invalid CIDR ${JSON.stringify(text)}: ${why}`);
}

function readCidr(text: string): ReadCidr {
  const slash = text.indexOf('/');
  if (slash < 0) throw invalidCidr(text, 'missing /prefix');
  const ip = readIp(text.slice(0, slash));
  if (typeof ip === 'string') throw invalidCidr(text, `malformed address (${ip})`);
  const prefixText = text.slice(slash + 1);
  const prefix = Number(prefixText);
  if (!PREFIX.test(prefixText) || prefix > addressBits(ip.version)) {
    throw invalidCidr(text, `prefix length must be 0-${addressBits(ip.version)}`);
  }
  const cidr = Object.freeze(maskIp(ip, prefix));
  return { cidr, exact: cidr.base === ip.value };
}
