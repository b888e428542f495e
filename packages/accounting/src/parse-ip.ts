import { Address4, Address6, AddressError } from 'ip-address';
import { AccountingError } from './accounting-error.js';
import type { IpAddress } from './ip-address.js';

/**
 * Parses an IPv4 dotted quad or an IPv6 address (with an embedded IPv4 tail or not), strictly:
 * no surrounding whitespace, no leading zeros in IPv4 octets, no zone id, no prefix, no
 * brackets. Throws `InvalidIp`, with the reason `ip-address` gives.
 */
export function parseIp(text: string): IpAddress {
  const parsed = readIp(text);
  if (typeof parsed === 'string') {
    throw new AccountingError('InvalidIp', `invalid IP address ${JSON.stringify(text)}: ${parsed}`);
  }
  return parsed;
}

/** Like {@link parseIp} but returns `undefined` instead of throwing. */
export function tryParseIp(text: string): IpAddress | undefined {
  const parsed = readIp(text);
  return typeof parsed === 'string' ? undefined : parsed;
}

/**
 * The address, or why it is refused. `ip-address` does the parsing; what it accepts beyond our
 * rules (a `/prefix` on both versions, a `%zone` on IPv6) is refused before it is asked.
 */
export function readIp(text: string): IpAddress | string {
  if (text.includes('/')) return 'a prefix is not allowed here';
  const v6 = text.includes(':');
  if (v6 && text.includes('%')) return 'a zone id is not allowed';
  try {
    return v6
      ? { version: 6, value: v6Value(new Address6(text)) }
      : { version: 4, value: v4Value(new Address4(text)) };
  } catch (e) {
    if (e instanceof AddressError) return e.message;
    throw e;
  }
}

// The value from the parsed parts, in plain numbers up to 32 bits at a time: `bigInt()` goes
// through a hex string and costs as much again as the parse.
function v4Value(a: Address4): bigint {
  let n = 0;
  for (const octet of a.toArray()) n = n * 256 + octet;
  return BigInt(n);
}

function v6Value(a: Address6): bigint {
  const groups = a.parsedAddress;
  let value = 0n;
  for (let i = 0; i < 8; i += 2) {
    const pair = parseInt(groups[i]!, 16) * 0x10000 + parseInt(groups[i + 1]!, 16);
    value = (value << 32n) | BigInt(pair);
  }
  return value;
}
