import { DeviceError } from './device-error.js';
import { parseIpv4 } from './ipv4.js';
import type { Lease, LeaseBook, LeaseKind } from './lease.js';
import { leaseKey } from './lease.js';
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

/** Encodes the persisted state as JSON text (stable order). */
export function encodeLeaseFile(state: PersistedState): string {
  const leases = [...state.book.leases.values()].map(
    ({ pool, owner, interface: iface, address, mac, kind }) => ({
      pool,
      owner,
      interface: iface,
      address,
      mac,
      kind,
    }),
  );
  return (
    JSON.stringify(
      {
        version: 1,
        pools: [...state.pools.values()].map(toPoolSpec),
        cursors: Object.fromEntries(state.book.cursors),
        leases,
      },
      null,
      1,
    ) + '\n'
  );
}

/** Decodes a lease file. Throws `LeaseStoreCorrupt` for anything it did not write. */
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
  if (!isObject(doc) || doc['version'] !== 1) return fail('unknown format (expected version 1)');
  const { pools: rawPools, cursors: rawCursors, leases: rawLeases } = doc;
  if (!Array.isArray(rawPools) || !isObject(rawCursors) || !Array.isArray(rawLeases))
    return fail('missing sections');
  const pools = new Map<string, Pool>();
  for (const raw of rawPools) {
    if (!isObject(raw) || typeof raw['name'] !== 'string') return fail('pool without a name');
    try {
      pools.set(raw['name'], parsePool(raw['name'], raw));
    } catch (e) {
      return fail(`pool ${raw['name']}: ${(e as Error).message}`);
    }
  }
  const cursors = new Map<string, number>();
  for (const [name, v] of Object.entries(rawCursors)) {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0)
      return fail(`bad cursor for ${name}`);
    cursors.set(name, v);
  }
  const leases = new Map<string, Lease>();
  for (const raw of rawLeases) {
    if (!isObject(raw)) return fail('lease is not an object');
    const { pool, owner, interface: iface, address, mac, kind } = raw;
    if (typeof pool !== 'string' || typeof owner !== 'string' || typeof iface !== 'string')
      return fail('lease key');
    const ip = typeof address === 'string' ? parseIpv4(address) : undefined;
    const m = typeof mac === 'string' ? normaliseMac(mac) : undefined;
    if (ip === undefined || m === undefined || !KINDS.includes(kind as LeaseKind))
      return fail(`lease ${owner}/${iface}`);
    leases.set(leaseKey(pool, owner, iface), {
      pool,
      owner,
      interface: iface,
      ip,
      address: address as string,
      mac: m,
      kind: kind as LeaseKind,
    });
  }
  return { pools, book: { leases, cursors } };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
