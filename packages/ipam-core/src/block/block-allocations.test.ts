import { describe, expect, it } from 'vitest';
import { allocationKind, blockAllocations } from './block-allocations.js';
import { BIG_SEQUENCE, TestBlockBuilder } from './test-block-builder.js';

describe('blockAllocations', () => {
  it('yields each allocated ordinal in order with its address, handle, holder and sequence number', () => {
    const block = new TestBlockBuilder('10.0.0.0/29')
      .affine('host:n1')
      .allocate([0, 2], 'k8s-pod-network.c1', { node: 'n1', namespace: 'ns', pod: 'p1' })
      .allocate([1], 'k8s-pod-network.c2', { node: 'n2', namespace: 'ns', pod: 'p2' }, { seq: 7n })
      .coolDown([6], '2026-01-01T00:00:00Z')
      .build();
    expect([...blockAllocations(block)]).toMatchObject([
      {
        ordinal: 0,
        ip: '10.0.0.0',
        handle: 'k8s-pod-network.c1',
        kind: 'pod',
        node: 'n1',
        borrowed: false,
        coolingDown: false,
        sequenceNumber: BIG_SEQUENCE,
      },
      {
        ordinal: 1,
        ip: '10.0.0.1',
        handle: 'k8s-pod-network.c2',
        kind: 'pod',
        node: 'n2',
        borrowed: true,
        sequenceNumber: 7n,
      },
      { ordinal: 2, ip: '10.0.0.2', attributeIndex: 0, affinityHost: 'n1' },
      {
        ordinal: 6,
        ip: '10.0.0.6',
        handle: undefined,
        kind: 'unknown',
        node: undefined,
        borrowed: false,
        coolingDown: true,
      },
    ]);
  });

  it('yields an allocation whose attribute is missing, with no attribute, and no affine host for a virtual block', () => {
    const block = { ...new TestBlockBuilder('fd00::/126').affine('virtual:lb').build() };
    const broken = { ...block, allocations: [5, null, null, null], unallocated: [1, 2, 3] };
    expect([...blockAllocations(broken)]).toEqual([
      expect.objectContaining({
        ip: 'fd00::',
        attributeIndex: 5,
        attribute: undefined,
        affinityHost: '',
      }),
    ]);
  });

  it.each([
    [{ handleId: 'Windows-Reserved-IPAM-Handle' }, 'windows-reserved'],
    [{ handleId: 'h', activeOwnerAttrs: { type: 'vxlanTunnelAddress', node: 'n' } }, 'tunnel'],
    [
      {
        handleId: 'h',
        activeOwnerAttrs: { 'vmi-name': 'vm1', namespace: 'ns', pod: 'virt-launcher' },
      },
      'vm',
    ],
    [{ handleId: 'h', activeOwnerAttrs: { namespace: 'ns', pod: 'p' } }, 'pod'],
    [{ handleId: 'h', activeOwnerAttrs: { pod: 'p' } }, 'unknown'],
    [{ handleId: 'lb-x', activeOwnerAttrs: { service: 'web', namespace: 'ns' } }, 'load-balancer'],
    [{ handleId: 'h' }, 'unknown'],
    [undefined, 'unknown'],
  ] as const)('%j is %s', (attribute, kind) => {
    expect(allocationKind(attribute)).toBe(kind);
  });
});
