import { AccountingError, parseIp } from '@netledger/accounting';
import type { Cidr } from '@netledger/accounting';
import type { IpFamily } from './address.js';
import { familyBits, formatSubnet } from './address.js';

/** A parse outcome: the value, or a sentence saying what is wrong with the text. */
export type Parsed<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly why: string };

const EXAMPLE: Record<IpFamily, { address: string; subnet: string }> = {
  4: { address: '10.0.5.1', subnet: '10.0.5.0/24' },
  6: { address: 'fd00:5::1', subnet: 'fd00:5::/64' },
};

// Quoted for a message, cut short: the text may be anything a file held.
function quote(text: string): string {
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}...` : text);
}

function tryParse(text: string): { version: IpFamily; value: bigint } | undefined {
  try {
    return parseIp(text);
  } catch (e) {
    if (e instanceof AccountingError) return undefined;
    throw e;
  }
}

/**
 * Parses one address of the given family, strictly (no leading zeros, no zone, no prefix). The
 * reason says what is wrong: the other family, an octet out of range, a bad group, ...
 */
export function parseAddress(text: string, family: IpFamily): Parsed<bigint> {
  const ip = tryParse(text);
  if (ip !== undefined && ip.version === family) return { ok: true, value: ip.value };
  const quoted = quote(text);
  if (ip !== undefined) {
    return { ok: false, why: `${quoted} is an IPv${ip.version} address, not IPv${family}` };
  }
  if (text === '')
    return {
      ok: false,
      why: `empty address (an IPv${family} address such as ${EXAMPLE[family].address})`,
    };
  if (text.includes('/'))
    return { ok: false, why: `${quoted} has a /prefix; an address is expected here` };
  const why = family === 4 ? explainIpv4(text) : explainIpv6(text);
  return { ok: false, why: `${quoted} is not an IPv${family} address: ${why}` };
}

function explainIpv4(text: string): string {
  if (text.includes(':')) return 'it looks like IPv6';
  const parts = text.split('.');
  if (parts.length !== 4)
    return `an IPv4 address has 4 dot-separated octets, this has ${parts.length}`;
  for (const part of parts) {
    if (part === '') return 'an octet is empty';
    if (!/^[0-9]+$/.test(part)) return `octet ${JSON.stringify(part)} is not a decimal number`;
    if (part.length > 1 && part.startsWith('0'))
      return `octet ${JSON.stringify(part)} has a leading zero (octal or decimal?)`;
    if (Number(part) > 255) return `octet ${part} is out of range (0-255)`;
  }
  return 'malformed';
}

function explainIpv6(text: string): string {
  if (!text.includes(':')) {
    return /^[0-9.]+$/.test(text)
      ? 'it looks like IPv4'
      : 'an IPv6 address has colon-separated groups';
  }
  if (text.includes('%')) return 'a zone index (%...) is not allowed';
  if (text.includes('[') || text.includes(']')) return 'brackets are not allowed';
  if (text.split('::').length > 2) return '"::" may appear only once';
  const groups = text.split(/::?/).filter((g) => g !== '');
  for (const [i, g] of groups.entries()) {
    if (i === groups.length - 1 && g.includes('.')) continue; // embedded IPv4 tail
    if (!/^[0-9a-fA-F]+$/.test(g)) return `group ${JSON.stringify(g)} is not hexadecimal`;
    if (g.length > 4) return `group ${JSON.stringify(g)} has more than 4 hex digits`;
  }
  if (!text.includes('::') && groups.length !== 8)
    return `it has ${groups.length} groups; without "::" an IPv6 address has 8`;
  if (text.includes('::') && groups.length > 7) return `too many groups for "::" to stand for any`;
  if (
    (text.startsWith(':') && !text.startsWith('::')) ||
    (text.endsWith(':') && !text.endsWith('::'))
  )
    return 'a single leading or trailing ":"';
  return 'malformed';
}

/**
 * Parses a strict CIDR of the given family: `address/prefix`, decimal prefix within the family's
 * width, no host bits set. The reason names the problem: no prefix, `/abc`, `/33`, the other
 * family, a bad octet or group, host bits (with the network they belong to).
 */
export function parseSubnet(text: string, family: IpFamily): Parsed<Cidr> {
  const quoted = quote(text);
  const slash = text.indexOf('/');
  if (slash < 0) {
    const bare = tryParse(text);
    if (bare !== undefined && bare.version !== family)
      return {
        ok: false,
        why: `${quoted} is an IPv${bare.version} address, not an IPv${family} CIDR`,
      };
    return {
      ok: false,
      why: `${quoted} has no /prefix (an IPv${family} CIDR such as ${EXAMPLE[family].subnet})`,
    };
  }
  const addressText = text.slice(0, slash);
  const prefixText = text.slice(slash + 1);
  const ip = tryParse(addressText);
  if (ip !== undefined && ip.version !== family) {
    return { ok: false, why: `${quoted} is an IPv${ip.version} CIDR, not IPv${family}` };
  }
  if (ip === undefined) {
    const address = parseAddress(addressText, family);
    return { ok: false, why: address.ok ? `${quoted} is malformed` : address.why };
  }
  const bits = familyBits(family);
  if (prefixText === '') return { ok: false, why: `${quoted} has an empty prefix after "/"` };
  if (!/^[0-9]+$/.test(prefixText))
    return { ok: false, why: `prefix "/${prefixText}" of ${quoted} is not a decimal number` };
  if (prefixText.length > 1 && prefixText.startsWith('0'))
    return { ok: false, why: `prefix "/${prefixText}" of ${quoted} has a leading zero` };
  const prefix = Number(prefixText);
  if (prefix > bits)
    return {
      ok: false,
      why: `prefix /${prefix} of ${quoted} is longer than the ${bits} bits of an IPv${family} address`,
    };
  const hostBits = BigInt(bits - prefix);
  const base = (ip.value >> hostBits) << hostBits;
  const cidr: Cidr = { version: family, base, prefix };
  if (base !== ip.value) {
    return { ok: false, why: `${quoted} has host bits set (its network is ${formatSubnet(cidr)})` };
  }
  return { ok: true, value: cidr };
}

/** An address with an optional `/prefix`, as static addresses are written (`10.0.5.50/24`). */
export function parseAddressWithPrefix(
  text: string,
  family: IpFamily,
): Parsed<{ readonly ip: bigint; readonly prefix: number | undefined }> {
  const slash = text.indexOf('/');
  const address = parseAddress(slash < 0 ? text : text.slice(0, slash), family);
  if (!address.ok) return address;
  if (slash < 0) return { ok: true, value: { ip: address.value, prefix: undefined } };
  const prefixText = text.slice(slash + 1);
  const bits = familyBits(family);
  if (!/^(?:0|[1-9][0-9]{0,2})$/.test(prefixText) || Number(prefixText) > bits) {
    return {
      ok: false,
      why: `prefix "/${prefixText}" of ${quote(text)} is not a number from 0 to ${bits}`,
    };
  }
  return { ok: true, value: { ip: address.value, prefix: Number(prefixText) } };
}
