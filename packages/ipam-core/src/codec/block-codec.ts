// Calico's block JSON (model.AllocationBlock, libcalico-go/lib/backend/model/block.go), field for
// field in Go's declaration order:
//   cidr, affinity (a *string without omitempty: `null` when the block has none),
//   affinity_claim_time (omitempty), allocations, unallocated, attributes (slices without
//   omitempty: a nil one is `null`), sequenceNumber, sequenceNumberForAllocation (a map without
//   omitempty: nil is `null`), deleted, hostAffinity (omitempty).
// Each attribute (model.AllocationAttribute): handle_id, secondary, alternateOwnerAttrs,
// releasedAt, all omitempty since Calico v3.32 (before, `handle_id` and `secondary` had no
// omitempty and were written `null` when unset). Times are metav1.Time: UTC, whole seconds.
//
// What the model has no field for is kept (`storedJson`): a `null` or absent slice or map (Go's
// nil) is written `null` again while it is still empty, a legacy `null` or `{}` attribute field
// is kept as stored while still empty, and unknown keys (a deprecated `strictAffinity`, the
// short-lived `alternate`) stay where they were. So netledger rewriting a block Calico wrote
// changes only what the operation changed.
import { AccountingError, formatCidr, parseCidr } from '@netledger/accounting';
import type { AllocationAttribute, AllocationBlock } from '../model/block.js';
import type { Obj } from './decode-fields.js';
import { arr, bad, bool, int, obj, optStr, str, strMap, uint64 } from './decode-fields.js';
import { goTime } from './go-time.js';
import { goOrderedObject, goString } from './json.js';
import type { JsonValue } from './json.js';
import type { FieldText } from './stored-json-codec.js';
import { emptyText, readStoredJson, writeObject } from './stored-json-codec.js';

const ATTRIBUTE_KEYS = ['handle_id', 'secondary', 'alternateOwnerAttrs', 'releasedAt'] as const;
const BLOCK_KEYS = [
  'cidr',
  'affinity',
  'affinity_claim_time',
  'allocations',
  'unallocated',
  'attributes',
  'sequenceNumber',
  'sequenceNumberForAllocation',
  'deleted',
  'hostAffinity',
] as const;

function decodeAttribute(v: JsonValue, what: string): AllocationAttribute {
  const o = obj(v, what);
  const handleId = optStr(o.handle_id, `${what}.handle_id`);
  const active = strMap(o.secondary, `${what}.secondary`);
  const alternate = strMap(o.alternateOwnerAttrs, `${what}.alternateOwnerAttrs`);
  const releasedAt = optStr(o.releasedAt, `${what}.releasedAt`);
  const storedJson = readStoredJson(o, ATTRIBUTE_KEYS, {
    handle_id: 'omitempty',
    secondary: 'omitempty',
    alternateOwnerAttrs: 'omitempty',
    releasedAt: 'omitempty',
  });
  return {
    ...(handleId !== undefined && { handleId }),
    ...(active && { activeOwnerAttrs: active }),
    ...(alternate && { alternateOwnerAttrs: alternate }),
    ...(releasedAt !== undefined && { releasedAt }),
    ...(storedJson && { storedJson }),
  };
}

/** The most addresses a block can hold: 2^20 (a /12 in IPv4 is not a block, whatever it says). */
const MAX_BLOCK_HOST_BITS = 20;

/**
 * Checks a decoded block against the key it was stored under: its `cidr` is a CIDR (network
 * address, no host bits), no larger than a block can be, and the key's block; it has one
 * allocation per address. Every ordinal is counted from the CIDR, so a block whose CIDR is not its
 * key's, or with ordinals past its end, would hand out addresses of another block. Throws
 * `Corrupt`.
 */
export function checkBlockShape(block: AllocationBlock, keyCidr: string): void {
  const { cidr } = block;
  let parsed;
  try {
    parsed = parseCidr(cidr);
  } catch (e) {
    if (!(e instanceof AccountingError)) throw e;
    return bad(`cidr ${JSON.stringify(cidr)} is not a CIDR (${e.message})`);
  }
  const hostBits = (parsed.version === 4 ? 32 : 128) - parsed.prefix;
  if (hostBits > MAX_BLOCK_HOST_BITS) bad(`cidr ${cidr} is larger than any block`);
  let keyText = keyCidr;
  try {
    keyText = formatCidr(parseCidr(keyCidr, { strict: false }));
  } catch (e) {
    if (!(e instanceof AccountingError)) throw e;
  }
  if (formatCidr(parsed) !== keyText)
    bad(`cidr ${cidr} is not the block ${keyCidr} it is stored as`);
  const size = 2 ** hostBits;
  if (block.allocations.length !== size)
    bad(
      `allocations has ${block.allocations.length} entries, but block ${cidr} has ${size} addresses`,
    );
}

/** Decodes a block; throws `Corrupt` naming the first bad field. */
export function decodeBlock(o: Obj): AllocationBlock {
  const cidr = str(o.cidr, 'cidr');
  const allocations = arr(o.allocations, 'allocations').map((a, i) =>
    a === null ? null : int(a, `allocations[${i}]`),
  );
  const unallocated = arr(o.unallocated, 'unallocated').map((u, i) => int(u, `unallocated[${i}]`));
  const attributes = arr(o.attributes, 'attributes').map((a, i) =>
    decodeAttribute(a, `attributes[${i}]`),
  );
  // An allocation pointing past the attributes would silently take the next attribute appended
  // (a new owner's) as its own, and compacting the attributes would write `undefined` for it.
  allocations.forEach((idx, i) => {
    if (idx !== null && (idx < 0 || idx >= attributes.length))
      bad(`allocations[${i}] points at attribute ${idx}, but the block has ${attributes.length}`);
  });
  // The free queue hands out what it lists: an ordinal listed twice, or also allocated, would be
  // handed out twice.
  const listed = new Set<number>();
  unallocated.forEach((o, i) => {
    if (o < 0 || o >= allocations.length)
      bad(`unallocated[${i}] is ordinal ${o}, outside the block's ${allocations.length}`);
    if (listed.has(o)) bad(`unallocated[${i}] lists ordinal ${o} twice`);
    if (allocations[o] !== null) bad(`unallocated[${i}] lists ordinal ${o}, which is allocated`);
    listed.add(o);
  });
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
  const storedJson = readStoredJson(o, BLOCK_KEYS, {
    affinity_claim_time: 'omitempty',
    allocations: 'nil',
    unallocated: 'nil',
    attributes: 'nil',
    sequenceNumberForAllocation: 'nil',
    hostAffinity: 'omitempty',
  });
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
    ...(storedJson && { storedJson }),
  };
}

const optString = (v: string | undefined): string | undefined =>
  v === undefined ? undefined : goString(v);
const optTime = (v: string | undefined): string | undefined =>
  v === undefined ? undefined : goString(goTime(v));
const isEmptyMap = (m: Readonly<Record<string, unknown>> | undefined): boolean =>
  m === undefined || Object.keys(m).length === 0;

function encodeAttribute(a: AllocationAttribute): string {
  const s = a.storedJson;
  const map = (key: string, m: Readonly<Record<string, string>> | undefined): FieldText => [
    key,
    isEmptyMap(m) ? emptyText(s, key, undefined) : goOrderedObject(m!).text,
  ];
  return writeObject(
    [
      ['handle_id', optString(a.handleId) ?? emptyText(s, 'handle_id', undefined)],
      map('secondary', a.activeOwnerAttrs),
      map('alternateOwnerAttrs', a.alternateOwnerAttrs),
      ['releasedAt', optTime(a.releasedAt) ?? emptyText(s, 'releasedAt', undefined)],
    ],
    s,
  );
}

/** Encodes a block as Go's json.Marshal writes model.AllocationBlock (see the file comment). */
export function encodeBlock(b: AllocationBlock): string {
  const s = b.storedJson;
  const list = (key: string, items: readonly unknown[], text: () => string): FieldText => [
    key,
    items.length === 0 ? emptyText(s, key, '[]') : text(),
  ];
  const seqs = b.sequenceNumberForAllocation;
  return writeObject(
    [
      ['cidr', goString(b.cidr)],
      ['affinity', optString(b.affinity) ?? 'null'],
      [
        'affinity_claim_time',
        optTime(b.affinityClaimTime) ?? emptyText(s, 'affinity_claim_time', undefined),
      ],
      list('allocations', b.allocations, () => `[${b.allocations.map(String).join(',')}]`),
      list('unallocated', b.unallocated, () => `[${b.unallocated.join(',')}]`),
      list('attributes', b.attributes, () => `[${b.attributes.map(encodeAttribute).join(',')}]`),
      ['sequenceNumber', b.sequenceNumber.toString()],
      [
        'sequenceNumberForAllocation',
        isEmptyMap(seqs)
          ? emptyText(s, 'sequenceNumberForAllocation', '{}')
          : goOrderedObject(seqs).text,
      ],
      ['deleted', b.deleted ? 'true' : 'false'],
      ['hostAffinity', optString(b.hostAffinity) ?? emptyText(s, 'hostAffinity', undefined)],
    ],
    s,
  );
}
