import { formatAddress } from './address.js';
import { DeviceError } from './device-error.js';
import { isObject } from './json-value.js';
import type { Lease, LeaseBook, LeaseKind } from './lease.js';
import { leaseKey, parseCursorKey } from './lease.js';
import { parseAddress } from './parse-address.js';
import { parsePool } from './parse-device-json.js';
import type { Pool, PoolRegistry } from './pool.js';
import { toPoolSpec } from './pool.js';
import { normaliseMac } from './validate-name.js';

/** What the daemon persists: the pools it last set up on the host, and the lease book. */
export interface PersistedState {
  readonly pools: PoolRegistry;
  readonly book: LeaseBook;
}

const KINDS: readonly LeaseKind[] = ['dynamic', 'static', 'reserved'];

/**
 * Encodes the persisted state as JSON text (stable order). A state without IPv6 is written in
 * format version 1, byte for byte what earlier daemons wrote (so a rolled-back daemon reads it);
 * with IPv6 it is version 2: leases carry `family`, IPv6 cursors are decimal strings.
 */
export function encodeLeaseFile(state: PersistedState): string {
  const v6 =
    [...state.pools.values()].some((p) => p.ipv6 !== undefined) ||
    [...state.book.leases.values()].some((l) => l.family === 6);
  const leases = [...state.book.leases.values()].map(
    ({ pool, owner, interface: iface, family, address, mac, kind }) => ({
      pool,
      owner,
      interface: iface,
      ...(v6 ? { family } : {}),
      address,
      mac,
      kind,
    }),
  );
  const cursors = Object.fromEntries(
    [...state.book.cursors].map(([key, v]) => [
      key,
      parseCursorKey(key).family === 4 ? Number(v) : String(v),
    ]),
  );
  return (
    JSON.stringify(
      {
        version: v6 ? 2 : 1,
        pools: [...state.pools.values()].map(toPoolSpec),
        cursors,
        leases,
      },
      null,
      1,
    ) + '\n'
  );
}

/** Decodes a lease file (version 1 or 2). Throws `LeaseStoreCorrupt` for anything it did not write. */
export function decodeLeaseFile(text: string): PersistedState {
  const fail = (why: string): never => {
    throw new DeviceError('LeaseStoreCorrupt', `lease file: ${why}`);
  };
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return fail('not valid JSON');
  }
  if (!isObject(doc) || (doc['version'] !== 1 && doc['version'] !== 2))
    return fail('unknown format (expected version 1 or 2)');
  const { pools: rawPools, cursors: rawCursors, leases: rawLeases } = doc;
  if (!Array.isArray(rawPools) || !isObject(rawCursors) || !Array.isArray(rawLeases))
    return fail('missing sections');
  const pools = new Map<string, Pool>();
  for (const raw of rawPools as unknown[]) {
    if (!isObject(raw) || typeof raw['name'] !== 'string') return fail('pool without a name');
    try {
      pools.set(raw['name'], parsePool(raw['name'], raw));
    } catch (e) {
      return fail(`pool ${raw['name']}: ${(e as Error).message}`);
    }
  }
  const cursors = new Map<string, bigint>();
  for (const [key, v] of Object.entries(rawCursors)) {
    const ok =
      (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) ||
      (typeof v === 'string' && /^(?:0|[1-9][0-9]{0,38})$/.test(v));
    if (!ok) return fail(`bad cursor for ${key}`);
    cursors.set(key, BigInt(v));
  }
  const leases = new Map<string, Lease>();
  for (const raw of rawLeases as unknown[]) {
    if (!isObject(raw)) return fail('lease is not an object');
    const { pool, owner, interface: iface, address, mac, kind } = raw;
    const family = raw['family'] ?? 4;
    if (typeof pool !== 'string' || typeof owner !== 'string' || typeof iface !== 'string')
      return fail('lease key');
    if (family !== 4 && family !== 6) return fail(`lease ${owner}/${iface}: family`);
    const ip = typeof address === 'string' ? parseAddress(address, family) : undefined;
    const m = typeof mac === 'string' ? normaliseMac(mac) : undefined;
    if (ip?.ok !== true || m === undefined || !KINDS.includes(kind as LeaseKind))
      return fail(`lease ${owner}/${iface}`);
    const lease: Lease = {
      pool,
      owner,
      interface: iface,
      family,
      ip: ip.value,
      address: formatAddress(family, ip.value),
      mac: m,
      kind: kind as LeaseKind,
    };
    leases.set(leaseKey(lease), lease);
  }
  return { pools, book: { leases, cursors } };
}
