// The IPAM kinds as Calico's CRD specs (crd.projectcalico.org/v1: libcalico-go/lib/apis/internalapi;
// projectcalico.org/v3: the same fields in api/pkg/apis/projectcalico/v3): blocks, affinities,
// handles and the IPAM config. Values go through ipam-core's codec (its validation and its exact
// uint64 handling); only the field names and the CRDs' requirements (`strictAffinity` present,
// `deleted` a string on v1 affinities, no nulls) differ from etcd's JSON.
import type {
  AllocationBlock,
  BlockAffinity,
  DatastoreKey,
  IpamConfigValue,
  IpamHandle,
} from '@netledger/ipam-core';
import type { JsonValue } from '@netledger/ipam-core/adapter';
import { IpamError } from '@netledger/ipam-core';
import { decodeValue, encodeValue, parseJson, stringifyJson } from '@netledger/ipam-core/adapter';

/** A JSON object as the API server sends it (integers beyond 2^53 as `bigint`). */
export type JsonObject = { [key: string]: JsonValue };

/** The largest value the CRDs' `int64` sequence numbers hold. */
const INT64_MAX = 2n ** 63n - 1n;

const isObject = (v: JsonValue | undefined): v is JsonObject =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Thrown by the spec decoders for a spec that is not Calico's shape; the caller names the object. */
export class BadSpec extends Error {}

function specObject(spec: JsonValue | undefined): JsonObject {
  if (!isObject(spec)) throw new BadSpec('spec is missing or not an object');
  return spec;
}

function checkInt64(n: bigint, what: string): void {
  if (n > INT64_MAX) {
    throw new IpamError(
      'InvalidArgument',
      `${what} ${n} does not fit the IPAMBlock CRD's int64 (at most ${INT64_MAX})`,
    );
  }
}

/** The block spec as the IPAMBlock CRD stores it. */
export function encodeBlockSpec(block: AllocationBlock): JsonObject {
  checkInt64(block.sequenceNumber, 'sequenceNumber');
  for (const [ordinal, n] of Object.entries(block.sequenceNumberForAllocation)) {
    checkInt64(n, `sequenceNumberForAllocation[${ordinal}]`);
  }
  const etcd = parseJson(encodeValue('IPAMBlock', block)) as JsonObject;
  const spec: JsonObject = {};
  for (const [k, v] of Object.entries(etcd)) {
    if (k === 'hostAffinity') continue; // not in the CRD; KDD drops it too
    if (k === 'affinity_claim_time') spec.affinityClaimTime = v;
    else if (v !== null) spec[k] = v;
  }
  spec.allocations ??= [];
  spec.unallocated ??= [];
  spec.attributes ??= [];
  spec.sequenceNumberForAllocation ??= {};
  spec.strictAffinity ??= false; // required by the CRD; deprecated and always false
  return spec;
}

/** A block from its CRD spec; `CorruptValue` errors name `key` (the caller rewords them). */
export function decodeBlockSpec(
  key: DatastoreKey<'IPAMBlock'>,
  raw: JsonValue | undefined,
): AllocationBlock {
  const spec = specObject(raw);
  const etcd: JsonObject = {};
  for (const [k, v] of Object.entries(spec)) {
    if (k === 'affinityClaimTime') etcd.affinity_claim_time = v;
    else if (k === 'strictAffinity' && v === false) continue;
    else etcd[k] = v;
  }
  etcd.affinity ??= null;
  etcd.allocations ??= [];
  etcd.unallocated ??= [];
  etcd.attributes ??= [];
  etcd.sequenceNumber ??= 0;
  etcd.sequenceNumberForAllocation ??= {};
  etcd.deleted ??= false;
  return decodeValue(key, stringifyJson(etcd));
}

/**
 * The affinity spec; `deleted` as the group's CRD has it (a string in v1, a boolean in v3), by
 * `encodeDeleted`.
 */
export function encodeAffinitySpec(
  key: DatastoreKey<'BlockAffinity'>,
  value: BlockAffinity,
  encodeDeleted: (deleted: boolean) => JsonValue,
): JsonObject {
  return {
    state: value.state,
    node: key.host,
    type: key.affinityType,
    cidr: key.cidr,
    deleted: encodeDeleted(value.deleted),
  };
}

/** Go's `strconv.ParseBool`, which Calico uses on the v1 affinity's string `deleted`. */
function parseGoBool(v: JsonValue | undefined): boolean {
  if (v === undefined || v === null || v === '') return false;
  if (typeof v === 'boolean') return v; // the v3 CRD's bool
  if (typeof v === 'string') {
    if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v)) return true;
    if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(v)) return false;
  }
  throw new BadSpec(`spec.deleted ${stringifyJson(v ?? null)} is not a boolean`);
}

/** An affinity's key and value from its CRD spec; an empty `type` is `host`, as in Calico. */
export function decodeAffinitySpec(raw: JsonValue | undefined): {
  key: DatastoreKey<'BlockAffinity'>;
  value: BlockAffinity;
} {
  const spec = specObject(raw);
  const { node, cidr, type, state } = spec;
  if (typeof node !== 'string' || node === '') throw new BadSpec('spec.node is missing');
  if (typeof cidr !== 'string' || cidr === '') throw new BadSpec('spec.cidr is missing');
  if (type !== undefined && type !== '' && type !== 'host' && type !== 'virtual') {
    throw new BadSpec(`spec.type ${stringifyJson(type)} is not host or virtual`);
  }
  const key: DatastoreKey<'BlockAffinity'> = {
    kind: 'BlockAffinity',
    host: node,
    cidr,
    affinityType: type === 'virtual' ? 'virtual' : 'host',
  };
  const deleted = parseGoBool(spec.deleted);
  const value = decodeValue(key, stringifyJson({ state: state ?? '', deleted }));
  return { key, value };
}

/** The handle spec: the ID with its case kept, the per-block counts, the soft-delete flag. */
export function encodeHandleSpec(handleId: string, value: IpamHandle): JsonObject {
  return { handleID: handleId, block: { ...value.block }, deleted: value.deleted };
}

/** A handle's key and value from its CRD spec (`spec.handleID` carries the case). */
export function decodeHandleSpec(
  raw: JsonValue | undefined,
  objectName: string,
): { key: DatastoreKey<'IPAMHandle'>; value: IpamHandle } {
  const spec = specObject(raw);
  const handleId = typeof spec.handleID === 'string' && spec.handleID ? spec.handleID : objectName;
  const key: DatastoreKey<'IPAMHandle'> = { kind: 'IPAMHandle', handleId };
  const value = decodeValue(
    key,
    stringifyJson({ block: spec.block ?? {}, deleted: spec.deleted ?? false }),
  );
  return { key, value };
}

/** The IPAMConfig spec; zero values are left out as Calico's `omitempty` does. */
export function encodeConfigSpec(c: IpamConfigValue): JsonObject {
  return {
    strictAffinity: c.strictAffinity,
    autoAllocateBlocks: c.autoAllocateBlocks,
    ...(c.maxBlocksPerHost !== 0 && { maxBlocksPerHost: c.maxBlocksPerHost }),
    ...(c.kubeVirtVMAddressPersistence !== undefined && {
      kubeVirtVMAddressPersistence: c.kubeVirtVMAddressPersistence,
    }),
    ...(c.ipCooldownSeconds !== 0 && { ipCooldownSeconds: c.ipCooldownSeconds }),
  };
}

/** The IPAM config from its CRD spec. */
export function decodeConfigSpec(raw: JsonValue | undefined): IpamConfigValue {
  const spec = specObject(raw);
  return decodeValue(
    { kind: 'IPAMConfig' },
    stringifyJson({
      strict_affinity: spec.strictAffinity,
      auto_allocate_blocks: spec.autoAllocateBlocks,
      maxBlocksPerHost: spec.maxBlocksPerHost,
      kubeVirtVMAddressPersistence: spec.kubeVirtVMAddressPersistence,
      ipCooldownSeconds: spec.ipCooldownSeconds,
    }),
  );
}
