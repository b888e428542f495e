import { createAddressFilter } from '@netledger/accounting';
import { describe, expect, it } from 'vitest';
import { assignInBlock } from '../block/block-assign.js';
import { autoAssignFromBlock } from '../block/block-auto-assign.js';
import { releaseFromBlock } from '../block/block-release.js';
import { newBlock } from '../block/new-block.js';
import type { AllocationBlock } from '../model/block.js';
import { decodeBlock, encodeBlock } from './block-codec.js';
import type { Obj } from './decode-fields.js';
import { parseJson } from './json.js';

const decode = (text: string): AllocationBlock => decodeBlock(parseJson(text) as Obj);

// As Calico <= v3.31 wrote a block first written before v3.22: attribute fields without
// omitempty, no ordinal sequenced yet (nil map).
const LEGACY =
  '{"cidr":"10.0.0.0/30","affinity":"host:n","allocations":[0,1,null,null],"unallocated":[2,3],' +
  '"attributes":[{"handle_id":null,"secondary":null},{"handle_id":"h","secondary":null}],' +
  '"sequenceNumber":0,"sequenceNumberForAllocation":null,"deleted":false}';

const noReservations = createAddressFilter([]);

describe('block codec: what the model does not carry survives a read-modify-write', () => {
  it('keeps legacy null attribute fields and gives the nil sequence map its first entry', () => {
    const assigned = assignInBlock(decode(LEGACY), {
      ip: '10.0.0.2',
      handleId: 'new',
      attrs: { pod: 'p' },
      affinity: 'host:n',
      affinityCheck: true,
    });
    expect(encodeBlock(assigned)).toBe(
      '{"cidr":"10.0.0.0/30","affinity":"host:n","allocations":[0,1,2,null],"unallocated":[3],' +
        '"attributes":[{"handle_id":null,"secondary":null},{"handle_id":"h","secondary":null},' +
        '{"handle_id":"new","secondary":{"pod":"p"}}],' +
        '"sequenceNumber":0,"sequenceNumberForAllocation":{"2":0},"deleted":false}',
    );
  });

  it('keeps a nil sequence map null while no ordinal is sequenced', () => {
    const { affinity: _a, ...unaffine } = decode(LEGACY);
    expect(encodeBlock(unaffine)).toContain('"affinity":null,');
    expect(encodeBlock(unaffine)).toContain('"sequenceNumberForAllocation":null,');
  });

  it('writes a nil attribute list null until the first allocation, then a list', () => {
    const fresh = newBlock({ cidr: '10.0.0.0/30', sequenceNumber: 5n });
    expect(encodeBlock(fresh)).toContain('"attributes":null,');
    const { block } = autoAssignFromBlock(fresh, {
      num: 1,
      handleId: 'h',
      affinity: 'host:n',
      affinityCheck: false,
      reservations: noReservations,
    });
    expect(encodeBlock(block)).toContain('"attributes":[{"handle_id":"h"}],');
    // Written and read again, as a store does between the two operations.
    const stored = decode(encodeBlock(block));
    const released = releaseFromBlock(stored, [{ address: '10.0.0.0' }], {
      nowMs: Date.UTC(2026, 0, 1),
      cooldownSeconds: 0,
    }).block;
    // Calico's garbage collection leaves an empty, non-nil list behind: [].
    expect(encodeBlock(released)).toContain('"attributes":[],');
  });

  it('keeps unknown keys where they were and legacy {} maps while still empty', () => {
    const text =
      '{"cidr":"10.0.0.0/30","affinity":null,"strict_affinity":true,"allocations":[0,null,null,null],' +
      '"unallocated":[1,2,3],"attributes":[{"handle_id":"h","secondary":{},"alternate":{"a":"b"}}],' +
      '"sequenceNumber":1,"sequenceNumberForAllocation":{"0":1},"deleted":false,"strictAffinity":false}';
    expect(encodeBlock(decode(text))).toBe(text);
  });

  it('writes the fields Calico has in its order whatever order they were read in', () => {
    const text =
      '{"deleted":false,"unallocated":[0],"cidr":"10.0.0.0/32","allocations":[null],' +
      '"attributes":[],"sequenceNumberForAllocation":{},"sequenceNumber":3,"affinity":"host:n"}';
    expect(encodeBlock(decode(text))).toBe(
      '{"cidr":"10.0.0.0/32","affinity":"host:n","allocations":[null],"unallocated":[0],' +
        '"attributes":[],"sequenceNumber":3,"sequenceNumberForAllocation":{},"deleted":false}',
    );
  });

  it('writes times as metav1.Time does and omits an empty owner map as Go >= v3.32 does', () => {
    const block: AllocationBlock = {
      ...newBlock({ cidr: '10.0.0.0/32', sequenceNumber: 1n, affinity: 'host:n' }),
      affinityClaimTime: '2026-01-01T01:00:00.5+01:00',
      allocations: [0],
      unallocated: [],
      attributes: [{ handleId: 'h', activeOwnerAttrs: {}, releasedAt: '2026-01-01T00:00:09.9Z' }],
    };
    expect(encodeBlock(block)).toBe(
      '{"cidr":"10.0.0.0/32","affinity":"host:n","affinity_claim_time":"2026-01-01T00:00:00Z",' +
        '"allocations":[0],"unallocated":[],' +
        '"attributes":[{"handle_id":"h","releasedAt":"2026-01-01T00:00:09Z"}],' +
        '"sequenceNumber":1,"sequenceNumberForAllocation":{},"deleted":false}',
    );
  });
});
