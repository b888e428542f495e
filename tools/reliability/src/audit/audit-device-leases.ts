// The device daemon's lease file read raw (`<data-dir>/leases.json`, as the daemon writes it) and
// checked against what its clients were told. Pure: text and the clients' ledger in, findings out.

/** One lease as the file holds it. */
export interface RawDeviceLease {
  readonly pool: string;
  readonly owner: string;
  readonly interface: string;
  readonly family: 4 | 6;
  readonly address: string;
}

/** What the clients were told: each container holding an address, and the containers in doubt. */
export interface DeviceLedger {
  /** Container -> the address its last acknowledged `start` returned (no teardown since). */
  readonly held: ReadonlyMap<string, string>;
  /**
   * Containers with a call in flight whose outcome the client does not know yet (a teardown may
   * have released the lease; a start may have made one): not judged.
   */
  readonly inDoubt: ReadonlySet<string>;
}

/** What the audit found. */
export interface DeviceLeaseAudit {
  readonly leases: number;
  /** Addresses leased to two (pool, owner, interface) at once: `address: owner, owner`. */
  readonly duplicates: readonly string[];
  /** Acknowledged leases missing from the file, or there with another address. */
  readonly lost: readonly string[];
  /** Leases of containers the clients believe hold nothing (released, or never started). */
  readonly unexpected: readonly string[];
}

/** Parses the lease file (format version 1 or 2); throws on anything else. */
export function parseDeviceLeaseFile(text: string): RawDeviceLease[] {
  const doc = JSON.parse(text) as { version?: unknown; leases?: unknown };
  if ((doc.version !== 1 && doc.version !== 2) || !Array.isArray(doc.leases)) {
    throw new Error(`not a device lease file (version ${String(doc.version)})`);
  }
  return (doc.leases as Record<string, unknown>[]).map((l) => {
    if (
      typeof l.pool !== 'string' ||
      typeof l.owner !== 'string' ||
      typeof l.interface !== 'string' ||
      typeof l.address !== 'string'
    ) {
      throw new Error(`a lease without pool, owner, interface or address: ${JSON.stringify(l)}`);
    }
    // Version 1 files hold IPv4 only and leave the family out.
    const family = l.family === 6 ? 6 : 4;
    return { pool: l.pool, owner: l.owner, interface: l.interface, family, address: l.address };
  });
}

/**
 * Checks the raw leases: no address held twice (in any pool: the pools of a device do not
 * overlap), every container the ledger says holds an address holds exactly that one, and no
 * container outside the ledger holds one, except containers in doubt.
 */
export function auditDeviceLeases(
  leases: readonly RawDeviceLease[],
  ledger: DeviceLedger,
): DeviceLeaseAudit {
  const byAddress = new Map<string, string[]>();
  const byOwner = new Map<string, string[]>();
  for (const l of leases) {
    const holder = `${l.pool}/${l.owner}/${l.interface}`;
    byAddress.set(l.address, [...(byAddress.get(l.address) ?? []), holder]);
    byOwner.set(l.owner, [...(byOwner.get(l.owner) ?? []), l.address]);
  }
  const duplicates = [...byAddress]
    .filter(([, holders]) => holders.length > 1)
    .map(([address, holders]) => `${address}: ${holders.join(', ')}`);
  const lost: string[] = [];
  for (const [container, address] of ledger.held) {
    if (ledger.inDoubt.has(container)) continue;
    const found = byOwner.get(container) ?? [];
    if (found.length !== 1 || found[0] !== address) {
      lost.push(`${container}: told ${address}, file has ${found.join(', ') || 'nothing'}`);
    }
  }
  const unexpected = [...byOwner]
    .filter(([owner]) => !ledger.held.has(owner) && !ledger.inDoubt.has(owner))
    .map(([owner, addresses]) => `${owner}: ${addresses.join(', ')}`);
  return { leases: leases.length, duplicates, lost, unexpected };
}
