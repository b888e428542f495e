import { IpamError } from '../errors.js';
import type { AllocationAttribute, AllocationBlock } from '../model/block.js';
import type { BlockAffinity, BlockAffinityState } from '../model/block-affinity.js';
import type { IpamConfigValue } from '../model/ipam-config.js';
import type { IpamHandle } from '../model/ipam-handle.js';
import type { DatastoreKey, Kind, ValueByKind } from '../model/keys.js';
import { RESOURCE_PLURALS, describeKey } from '../model/keys.js';
import { JsonSyntaxError, goOrderedObject, parseJson, stringifyJson } from './json.js';
import type { JsonValue } from './json.js';

// Calico's JSON for each kind, field for field and in Go's field order, so a value written here
// reads back in Calico, and etcdctl shows what Calico itself would write.

type Obj = { [key: string]: JsonValue };

class Corrupt extends Error {}
const bad = (what: string): never => {
  throw new Corrupt(what);
};
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const obj = (v: JsonValue | undefined, what: string): Obj =>
  isObj(v) ? v : bad(`${what} is not an object`);
const str = (v: JsonValue | undefined, what: string): string =>
  typeof v === 'string' ? v : bad(`${what} is not a string`);
const optStr = (v: JsonValue | undefined, what: string): string | undefined =>
  v === undefined || v === null ? undefined : str(v, what);
const bool = (v: JsonValue | undefined, what: string): boolean =>
  v === undefined || v === null
    ? false
    : typeof v === 'boolean'
      ? v
      : bad(`${what} is not a boolean`);
const int = (v: JsonValue | undefined, what: string): number =>
  v === undefined || v === null
    ? 0
    : typeof v === 'number' && Number.isSafeInteger(v)
      ? v
      : bad(`${what} is not an integer`);
const uint64 = (v: JsonValue | undefined, what: string): bigint => {
  if (v === undefined || v === null) return 0n;
  const n =
    typeof v === 'bigint'
      ? v
      : typeof v === 'number' && Number.isInteger(v)
        ? BigInt(v)
        : bad(`${what} is not an integer`);
  return n >= 0n && n < 1n << 64n ? n : bad(`${what} is out of the uint64 range`);
};
const arr = (v: JsonValue | undefined, what: string): JsonValue[] =>
  v === undefined || v === null ? [] : Array.isArray(v) ? v : bad(`${what} is not an array`);
const strMap = (v: JsonValue | undefined, what: string): Record<string, string> | undefined => {
  if (v === undefined || v === null) return undefined;
  const o = obj(v, what);
  for (const [k, x] of Object.entries(o)) str(x, `${what}.${k}`);
  return o as Record<string, string>;
};

function decodeAttribute(v: JsonValue, what: string): AllocationAttribute {
  const o = obj(v, what);
  const handleId = optStr(o.handle_id, `${what}.handle_id`);
  const active = strMap(o.secondary, `${what}.secondary`);
  const alternate = strMap(o.alternateOwnerAttrs, `${what}.alternateOwnerAttrs`);
  const releasedAt = optStr(o.releasedAt, `${what}.releasedAt`);
  return {
    ...(handleId !== undefined && { handleId }),
    ...(active && { activeOwnerAttrs: active }),
    ...(alternate && { alternateOwnerAttrs: alternate }),
    ...(releasedAt !== undefined && { releasedAt }),
  };
}

function decodeBlock(o: Obj): AllocationBlock {
  const cidr = str(o.cidr, 'cidr');
  const allocations = arr(o.allocations, 'allocations').map((a, i) =>
    a === null ? null : int(a, `allocations[${i}]`),
  );
  const unallocated = arr(o.unallocated, 'unallocated').map((u, i) => int(u, `unallocated[${i}]`));
  const attributes = arr(o.attributes, 'attributes').map((a, i) =>
    decodeAttribute(a, `attributes[${i}]`),
  );
  const seqs: Record<string, bigint> = {};
  const rawSeqs = o.sequenceNumberForAllocation;
  if (rawSeqs !== undefined && rawSeqs !== null) {
    for (const [k, v] of Object.entries(obj(rawSeqs, 'sequenceNumberForAllocation'))) {
      if (!/^\d+$/.test(k))
        bad(`sequenceNumberForAllocation key ${JSON.stringify(k)} is not an ordinal`);
      seqs[k] = uint64(v, `sequenceNumberForAllocation.${k}`);
    }
  }
  const affinity = optStr(o.affinity, 'affinity');
  const claimTime = optStr(o.affinity_claim_time, 'affinity_claim_time');
  const hostAffinity = optStr(o.hostAffinity, 'hostAffinity');
  return {
    cidr,
    ...(affinity !== undefined && { affinity }),
    ...(claimTime !== undefined && { affinityClaimTime: claimTime }),
    allocations,
    unallocated,
    attributes,
    sequenceNumber: uint64(o.sequenceNumber, 'sequenceNumber'),
    sequenceNumberForAllocation: seqs,
    deleted: bool(o.deleted, 'deleted'),
    ...(hostAffinity !== undefined && { hostAffinity }),
  };
}

function encodeBlock(b: AllocationBlock): unknown {
  return {
    cidr: b.cidr,
    affinity: b.affinity,
    affinity_claim_time: b.affinityClaimTime,
    allocations: b.allocations,
    unallocated: b.unallocated,
    attributes: b.attributes.map((a) => ({
      handle_id: a.handleId,
      secondary: a.activeOwnerAttrs && goOrderedObject(a.activeOwnerAttrs),
      alternateOwnerAttrs: a.alternateOwnerAttrs && goOrderedObject(a.alternateOwnerAttrs),
      releasedAt: a.releasedAt,
    })),
    sequenceNumber: b.sequenceNumber,
    sequenceNumberForAllocation: goOrderedObject(b.sequenceNumberForAllocation),
    deleted: b.deleted,
    hostAffinity: b.hostAffinity,
  };
}

const STATES: readonly BlockAffinityState[] = ['pending', 'confirmed', 'pendingDeletion'];

function decodeAffinity(o: Obj): BlockAffinity {
  const raw = optStr(o.state, 'state') ?? '';
  // Calico treats an empty state as confirmed (affinities written before states existed).
  const state =
    raw === ''
      ? 'confirmed'
      : (STATES.find((s) => s === raw) ?? bad(`state ${JSON.stringify(raw)} is unknown`));
  return { state, deleted: bool(o.deleted, 'deleted') };
}

function decodeHandle(o: Obj, handleId: string): IpamHandle {
  const block: Record<string, number> = {};
  const raw = o.block;
  if (raw !== undefined && raw !== null) {
    for (const [k, v] of Object.entries(obj(raw, 'block'))) {
      const n = int(v, `block.${k}`);
      if (n < 0) bad(`block.${k} is negative`);
      block[k] = n;
    }
  }
  return { handleId, block, deleted: bool(o.deleted, 'deleted') };
}

function decodeConfig(o: Obj): IpamConfigValue {
  const persistence = optStr(o.kubeVirtVMAddressPersistence, 'kubeVirtVMAddressPersistence');
  if (persistence !== undefined && persistence !== 'Enabled' && persistence !== 'Disabled') {
    bad(`kubeVirtVMAddressPersistence ${JSON.stringify(persistence)} is not Enabled or Disabled`);
  }
  return {
    strictAffinity: bool(o.strict_affinity, 'strict_affinity'),
    autoAllocateBlocks: bool(o.auto_allocate_blocks, 'auto_allocate_blocks'),
    maxBlocksPerHost: int(o.maxBlocksPerHost, 'maxBlocksPerHost'),
    ...(persistence !== undefined && {
      kubeVirtVMAddressPersistence: persistence as 'Enabled' | 'Disabled',
    }),
    ipCooldownSeconds: int(o.ipCooldownSeconds, 'ipCooldownSeconds'),
  };
}

// Calico marshals the config with omitempty on every field.
const encodeConfig = (c: IpamConfigValue): unknown => ({
  strict_affinity: c.strictAffinity || undefined,
  auto_allocate_blocks: c.autoAllocateBlocks || undefined,
  maxBlocksPerHost: c.maxBlocksPerHost || undefined,
  kubeVirtVMAddressPersistence: c.kubeVirtVMAddressPersistence || undefined,
  ipCooldownSeconds: c.ipCooldownSeconds || undefined,
});

const RESOURCE_KIND_NAMES = Object.keys(RESOURCE_PLURALS);

function decodeResource(kind: Kind, o: Obj): unknown {
  if (o.kind !== undefined && o.kind !== kind)
    bad(`kind is ${JSON.stringify(o.kind)}, expected ${kind}`);
  const metadata = obj(o.metadata, 'metadata');
  str(metadata.name, 'metadata.name');
  if (kind === 'IPPool') str(obj(o.spec, 'spec').cidr, 'spec.cidr');
  if (kind === 'IPReservation') {
    arr(obj(o.spec, 'spec').reservedCIDRs, 'spec.reservedCIDRs').forEach((c, i) =>
      str(c, `spec.reservedCIDRs[${i}]`),
    );
  }
  if (kind === 'ClusterInformation') obj(o.spec ?? {}, 'spec');
  const { kind: _k, apiVersion: _a, ...rest } = o;
  return rest;
}

const encodeResource = (kind: Kind, v: object): unknown => ({
  kind,
  apiVersion: 'projectcalico.org/v3',
  ...v,
});

/** Encodes a value as Calico stores it (etcd JSON). */
export function encodeValue<K extends Kind>(kind: K, value: ValueByKind[K]): string {
  switch (kind) {
    case 'IPAMBlock':
      return stringifyJson(encodeBlock(value as AllocationBlock));
    case 'BlockAffinity': {
      const a = value as BlockAffinity;
      return stringifyJson({ state: a.state, deleted: a.deleted });
    }
    case 'IPAMHandle': {
      const h = value as IpamHandle;
      return stringifyJson({ block: goOrderedObject(h.block), deleted: h.deleted });
    }
    case 'IPAMConfig':
      return stringifyJson(encodeConfig(value as IpamConfigValue));
    case 'IPAMHost':
      return '{}';
    default:
      return stringifyJson(encodeResource(kind, value));
  }
}

/**
 * Decodes a stored value for `key`. A value that is not valid Calico JSON for its kind throws
 * `IpamError('CorruptValue')` naming the key and the offending field.
 */
export function decodeValue<K extends Kind>(key: DatastoreKey<K>, text: string): ValueByKind[K] {
  try {
    const o = obj(parseJson(text), 'value');
    switch (key.kind) {
      case 'IPAMBlock':
        return decodeBlock(o) as ValueByKind[K];
      case 'BlockAffinity':
        return decodeAffinity(o) as ValueByKind[K];
      case 'IPAMHandle':
        return decodeHandle(o, (key as DatastoreKey<'IPAMHandle'>).handleId) as ValueByKind[K];
      case 'IPAMConfig':
        return decodeConfig(o) as ValueByKind[K];
      case 'IPAMHost':
        return {} as ValueByKind[K];
      default:
        if (!RESOURCE_KIND_NAMES.includes(key.kind)) bad(`unknown kind ${key.kind}`);
        return decodeResource(key.kind, o) as ValueByKind[K];
    }
  } catch (e) {
    if (e instanceof Corrupt || e instanceof JsonSyntaxError) {
      throw new IpamError('CorruptValue', `invalid value under ${describeKey(key)}: ${e.message}`, {
        identifier: describeKey(key),
        cause: e,
      });
    }
    throw e;
  }
}
