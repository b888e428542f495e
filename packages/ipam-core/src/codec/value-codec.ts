import { IpamError } from '../errors.js';
import type { AllocationBlock } from '../model/block.js';
import type { BlockAffinity, BlockAffinityState } from '../model/block-affinity.js';
import type { IpamConfigValue } from '../model/ipam-config.js';
import type { IpamHandle } from '../model/ipam-handle.js';
import type { DatastoreKey, Kind, ValueByKind } from '../model/keys.js';
import { RESOURCE_PLURALS, describeKey } from '../model/keys.js';
import { checkBlockShape, decodeBlock, encodeBlock } from './block-codec.js';
import { CLUSTER_INFORMATION, IP_POOL, IP_RESERVATION, NODE } from './calico-schemas.js';
import type { Obj } from './decode-fields.js';
import { Corrupt, arr, bad, bool, int, obj, optStr, str } from './decode-fields.js';
import type { GoType } from './go-struct.js';
import { encodeGo } from './go-struct.js';
import { JsonSyntaxError, goOrderedObject, parseJson, stringifyJson } from './json.js';
import { emptyText, readStoredJson, writeObject } from './stored-json-codec.js';

// Calico's JSON for each kind, field for field and in Go's field order, with Go's escaping, so a
// value written here reads back in Calico, and etcdctl shows byte for byte what Calico itself
// would write for the same data. The golden corpus (test/golden/) pins it.

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
  const storedJson = readStoredJson(o, ['block', 'deleted'], { block: 'nil' });
  return {
    handleId,
    block,
    deleted: bool(o.deleted, 'deleted'),
    ...(storedJson && { storedJson }),
  };
}

// model.IPAMHandle (libcalico-go/lib/backend/model/ipam_handle.go): `block` is a map without
// omitempty (nil is `null`), then `deleted`; the handle ID is the key, not in the value.
const encodeHandle = (h: IpamHandle): string =>
  writeObject(
    [
      [
        'block',
        Object.keys(h.block).length === 0
          ? emptyText(h.storedJson, 'block', '{}')
          : goOrderedObject(h.block).text,
      ],
      ['deleted', h.deleted ? 'true' : 'false'],
    ],
    h.storedJson,
  );

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

// The Go struct of each v3 resource kind (see calico-schemas.ts).
const RESOURCE_SCHEMAS: Readonly<Record<string, GoType>> = {
  IPPool: IP_POOL,
  IPReservation: IP_RESERVATION,
  Node: NODE,
  ClusterInformation: CLUSTER_INFORMATION,
};

function decodeResource(kind: Kind, o: Obj): unknown {
  if (o.kind !== undefined && o.kind !== kind)
    bad(`kind is ${JSON.stringify(o.kind)}, expected ${kind}`);
  const metadata = obj(o.metadata, 'metadata');
  str(metadata.name, 'metadata.name');
  const { kind: _k, apiVersion: _a, ...rest } = o;
  if (kind === 'IPPool') str(obj(o.spec, 'spec').cidr, 'spec.cidr');
  if (kind === 'IPReservation') {
    const spec = obj(o.spec ?? {}, 'spec');
    const cidrs = arr(spec.reservedCIDRs, 'spec.reservedCIDRs');
    cidrs.forEach((c, i) => str(c, `spec.reservedCIDRs[${i}]`));
    // Go omits an empty list (omitempty); the model always has one.
    return { ...rest, spec: { ...spec, reservedCIDRs: cidrs } };
  }
  if (kind === 'ClusterInformation') obj(o.spec ?? {}, 'spec');
  return rest;
}

const encodeResource = (kind: Kind, v: object): string =>
  encodeGo(RESOURCE_SCHEMAS[kind]!, { kind, apiVersion: 'projectcalico.org/v3', ...v });

/** Encodes a value as Calico stores it (etcd JSON). */
export function encodeValue<K extends Kind>(kind: K, value: ValueByKind[K]): string {
  switch (kind) {
    case 'IPAMBlock':
      return encodeBlock(value as AllocationBlock);
    case 'BlockAffinity': {
      const a = value as BlockAffinity;
      return stringifyJson({ state: a.state, deleted: a.deleted });
    }
    case 'IPAMHandle':
      return encodeHandle(value as IpamHandle);
    case 'IPAMConfig':
      return stringifyJson(encodeConfig(value as IpamConfigValue));
    case 'IPAMHost':
      return '{}';
    default:
      return encodeResource(kind, value);
  }
}

/**
 * Decodes a stored value for `key`. A value that is not valid Calico JSON for its kind throws
 * `IpamError('CorruptValue')` naming the key and the offending field.
 */
export function decodeValue<K extends Kind>(key: DatastoreKey<K>, text: string): ValueByKind[K] {
  try {
    // Calico stored affinities without a value once, and reads an empty one as `{}`
    // (model/block_affinity.go, parseValue).
    const raw = key.kind === 'BlockAffinity' && text === '' ? '{}' : text;
    const o = obj(parseJson(raw), 'value');
    switch (key.kind) {
      case 'IPAMBlock': {
        const block = decodeBlock(o);
        checkBlockShape(block, (key as DatastoreKey<'IPAMBlock'>).cidr);
        return block as ValueByKind[K];
      }
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
