import { AccountingError } from './accounting-error.js';
import type { IpAddress } from './ip-address.js';

const V4_OCTET = /^(?:0|[1-9][0-9]{0,2})$/;
const V6_GROUP = /^[0-9a-fA-F]{1,4}$/;

/**
 * Parses an IPv4 dotted quad or an IPv6 address, strictly: no surrounding whitespace, no
 * leading zeros in IPv4 octets, no zone id, no prefix, no brackets. Throws `InvalidIp`.
 */
export function parseIp(text: string): IpAddress {
  const parsed = text.includes(':') ? parseV6(text) : parseV4(text);
  if (parsed === undefined) {
    throw new AccountingError('InvalidIp', `invalid IP address ${JSON.stringify(text)}`);
  }
  return parsed;
}

/** Like {@link parseIp} but returns `undefined` instead of throwing. */
export function tryParseIp(text: string): IpAddress | undefined {
  return text.includes(':') ? parseV6(text) : parseV4(text);
}

function parseV4Value(text: string): bigint | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let value = 0n;
  for (const part of parts) {
    if (!V4_OCTET.test(part)) return undefined;
    const octet = Number(part);
    if (octet > 255) return undefined;
    value = (value << 8n) | BigInt(octet);
  }
  return value;
}

function parseV4(text: string): IpAddress | undefined {
  const value = parseV4Value(text);
  return value === undefined ? undefined : { version: 4, value };
}

// Splits one side of a possible `::` into 16-bit groups; a trailing dotted quad counts as two.
function parseGroups(text: string, allowV4Tail: boolean): number[] | undefined {
  if (text === '') return [];
  const parts = text.split(':');
  const groups: number[] = [];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] ?? '';
    if (allowV4Tail && i === parts.length - 1 && part.includes('.')) {
      const v4 = parseV4Value(part);
      if (v4 === undefined) return undefined;
      groups.push(Number(v4 >> 16n), Number(v4 & 0xffffn));
    } else {
      if (!V6_GROUP.test(part)) return undefined;
      groups.push(parseInt(part, 16));
    }
  }
  return groups;
}

function parseV6(text: string): IpAddress | undefined {
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  let groups: number[];
  if (halves.length === 1) {
    const all = parseGroups(text, true);
    if (all?.length !== 8) return undefined;
    groups = all;
  } else {
    const head = parseGroups(halves[0] ?? '', false);
    const tail = parseGroups(halves[1] ?? '', true);
    // `::` stands for at least one group of zeros (RFC 4291 §2.2).
    if (head === undefined || tail === undefined || head.length + tail.length > 7) return undefined;
    groups = [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
  }
  let value = 0n;
  for (const group of groups) value = (value << 16n) | BigInt(group);
  return { version: 6, value };
}
