import { describe, expect, it } from 'vitest';
import { findBlockProblems } from './block-problems.js';
import { allocationAttributesForIp, ipsByHandleInBlock } from './block-queries.js';
import {
  moveIpToHandleInBlock,
  ownerMatches,
  setOwnerAttributesInBlock,
  validateOwnerUpdate,
} from './owner-attributes.js';
import type { OwnerAttributePreconditions, OwnerAttributeUpdates } from './owner-attributes.js';
import { TestBlockBuilder, deepFreeze, thrown } from './test-block-builder.js';

const CIDR = '10.0.0.0/26';
const POD_A = { pod: 'a', namespace: 'ns' };
const POD_B = { pod: 'b', namespace: 'ns' };
const ALT = { pod: 'target', namespace: 'ns' };

// Three addresses share one record; 4 holds a different owner; 5 is cooling; 6 is free.
const block = deepFreeze(
  new TestBlockBuilder(CIDR)
    .sequence(50n)
    .allocate([1, 2, 3], 'h', POD_A)
    .allocate([4], 'h2', POD_B)
    .coolDown([5], '2026-01-01T00:00:00Z')
    .build(),
);

describe('validateOwnerUpdate', () => {
  it.each<[string, OwnerAttributeUpdates, OwnerAttributePreconditions]>([
    [
      'ClearActiveOwner and ActiveOwnerAttrs',
      { clearActiveOwner: true, activeOwnerAttrs: POD_B },
      {},
    ],
    [
      'ClearAlternateOwner and AlternateOwnerAttrs',
      { clearAlternateOwner: true, alternateOwnerAttrs: ALT },
      {},
    ],
    [
      'ExpectedActiveOwner and VerifyActiveOwnerEmpty',
      { activeOwnerAttrs: POD_B },
      { expectedActiveOwner: { namespace: 'ns', name: 'a' }, verifyActiveOwnerEmpty: true },
    ],
    [
      'ExpectedAlternateOwner and VerifyAlternateOwnerEmpty',
      { alternateOwnerAttrs: ALT },
      { expectedAlternateOwner: { namespace: 'ns', name: 'x' }, verifyAlternateOwnerEmpty: true },
    ],
  ])('%s are mutually exclusive (also in the block primitive)', (what, u, p) => {
    expect(thrown(() => validateOwnerUpdate(u, p))).toMatchObject({
      code: 'InvalidArgument',
      message: `${what} are mutually exclusive`,
    });
    expect(
      thrown(() =>
        setOwnerAttributesInBlock(block, {
          ip: '10.0.0.1',
          handleId: 'h',
          updates: u,
          preconditions: p,
        }),
      ),
    ).toMatchObject({ code: 'InvalidArgument' });
  });

  it('false flags do not conflict', () => {
    expect(() =>
      validateOwnerUpdate(
        { clearActiveOwner: false, activeOwnerAttrs: POD_B },
        { verifyActiveOwnerEmpty: false },
      ),
    ).not.toThrow();
  });
});

describe('ownerMatches', () => {
  it.each([
    [{ namespace: 'ns', name: 'a' }, POD_A, true],
    [{ namespace: 'ns', name: 'b' }, POD_A, false],
    [{ namespace: 'other', name: 'a' }, POD_A, false],
    [{ namespace: '', name: '' }, undefined, true],
    [{ namespace: '', name: '' }, {}, true],
    [{ namespace: '', name: '' }, POD_A, false],
    [{ namespace: 'ns', name: 'a' }, undefined, false],
  ])('%j vs %j -> %s', (owner, attrs, match) => {
    expect(ownerMatches(owner, attrs)).toBe(match);
  });
});

describe('setOwnerAttributesInBlock', () => {
  it('re-points one address to a new record; the shared record is never edited in place', () => {
    const next = setOwnerAttributesInBlock(block, {
      ip: '10.0.0.2',
      handleId: 'h',
      updates: { alternateOwnerAttrs: ALT },
      preconditions: {
        expectedActiveOwner: { namespace: 'ns', name: 'a' },
        verifyAlternateOwnerEmpty: true,
      },
    });
    expect(allocationAttributesForIp(next, '10.0.0.2')).toEqual({
      handleId: 'h',
      activeOwnerAttrs: POD_A,
      alternateOwnerAttrs: ALT,
    });
    for (const ip of ['10.0.0.1', '10.0.0.3'])
      expect(allocationAttributesForIp(next, ip)).toEqual({
        handleId: 'h',
        activeOwnerAttrs: POD_A,
      });
    expect(next.attributes[0]).toEqual({ handleId: 'h', activeOwnerAttrs: POD_A });
    expect(ipsByHandleInBlock(next, 'h')).toEqual(['10.0.0.1', '10.0.0.2', '10.0.0.3']);
    expect(findBlockProblems(next)).toEqual([]);
  });

  it('an update that makes a record equal to an existing one shares it; the old one is pruned', () => {
    const single = deepFreeze(
      new TestBlockBuilder(CIDR).allocate([1], 'h', POD_A).allocate([2], 'h', POD_B).build(),
    );
    const next = setOwnerAttributesInBlock(single, {
      ip: '10.0.0.2',
      handleId: 'h',
      updates: { activeOwnerAttrs: POD_A },
    });
    expect(next.attributes).toEqual([{ handleId: 'h', activeOwnerAttrs: POD_A }]);
    expect(next.allocations.slice(1, 3)).toEqual([0, 0]);
  });

  it.each<[string, OwnerAttributeUpdates, Record<string, unknown>]>([
    ['clears the active owner', { clearActiveOwner: true }, { handleId: 'h' }],
    [
      'replaces the active owner',
      { activeOwnerAttrs: POD_B },
      { handleId: 'h', activeOwnerAttrs: POD_B },
    ],
    [
      'sets the alternate owner',
      { alternateOwnerAttrs: ALT },
      { handleId: 'h', activeOwnerAttrs: POD_A, alternateOwnerAttrs: ALT },
    ],
    [
      'swaps both',
      { activeOwnerAttrs: ALT, alternateOwnerAttrs: POD_A },
      { handleId: 'h', activeOwnerAttrs: ALT, alternateOwnerAttrs: POD_A },
    ],
  ])('%s', (_, updates, expected) => {
    const next = setOwnerAttributesInBlock(block, { ip: '10.0.0.3', handleId: 'h', updates });
    expect(allocationAttributesForIp(next, '10.0.0.3')).toEqual(expected);
    expect(allocationAttributesForIp(next, '10.0.0.1')).toEqual({
      handleId: 'h',
      activeOwnerAttrs: POD_A,
    });
  });

  it('an empty update is a no-op that succeeds, whatever the preconditions', () => {
    expect(
      setOwnerAttributesInBlock(block, {
        ip: '10.0.0.1',
        handleId: 'h',
        updates: {},
        preconditions: { expectedActiveOwner: { namespace: 'x', name: 'y' } },
      }),
    ).toBe(block);
  });

  it.each<[string, string, string, OwnerAttributeUpdates, OwnerAttributePreconditions, string]>([
    ['a free address', '10.0.0.6', 'h', { clearActiveOwner: true }, {}, 'DoesNotExist'],
    ['another handle', '10.0.0.4', 'h', { clearActiveOwner: true }, {}, 'InvalidArgument'],
    ['an address in cooldown', '10.0.0.5', 'h', { clearActiveOwner: true }, {}, 'InvalidArgument'],
    [
      'an address outside the block',
      '10.0.1.1',
      'h',
      { clearActiveOwner: true },
      {},
      'InvalidArgument',
    ],
    [
      'the wrong expected active owner',
      '10.0.0.1',
      'h',
      { activeOwnerAttrs: POD_B },
      { expectedActiveOwner: { namespace: 'ns', name: 'zzz' } },
      'PreconditionFailed',
    ],
    [
      'an active owner expected empty',
      '10.0.0.1',
      'h',
      { activeOwnerAttrs: POD_B },
      { verifyActiveOwnerEmpty: true },
      'PreconditionFailed',
    ],
    [
      'an alternate owner expected where there is none',
      '10.0.0.1',
      'h',
      { alternateOwnerAttrs: ALT },
      { expectedAlternateOwner: { namespace: 'ns', name: 'target' } },
      'PreconditionFailed',
    ],
  ])('%s -> %s', (_, ip, handleId, updates, preconditions, code) => {
    expect(
      thrown(() => setOwnerAttributesInBlock(block, { ip, handleId, updates, preconditions })),
    ).toMatchObject({ code });
  });

  it('a precondition on a field that is not updated is not checked', () => {
    const next = setOwnerAttributesInBlock(block, {
      ip: '10.0.0.1',
      handleId: 'h',
      updates: { alternateOwnerAttrs: ALT },
      preconditions: { expectedActiveOwner: { namespace: 'ns', name: 'zzz' } },
    });
    expect(allocationAttributesForIp(next, '10.0.0.1').alternateOwnerAttrs).toEqual(ALT);
  });

  it('the error message names both owners', () => {
    expect(
      thrown(() =>
        setOwnerAttributesInBlock(block, {
          ip: '10.0.0.1',
          handleId: 'h',
          updates: { activeOwnerAttrs: POD_B },
          preconditions: { verifyActiveOwnerEmpty: true },
        }),
      ).message,
    ).toBe('cannot set ActiveOwnerAttrs: expected pod= namespace= but found pod=a namespace=ns');
  });
});

describe('moveIpToHandleInBlock', () => {
  const owner = { namespace: 'ns', name: 'a' };

  it('re-points one address to the new handle; it is never unowned and others keep the record', () => {
    const next = moveIpToHandleInBlock(block, {
      ip: '10.0.0.2',
      handleId: 'h',
      newHandleId: 'h-new',
      expectedOwner: owner,
    });
    expect(allocationAttributesForIp(next, '10.0.0.2')).toEqual({
      handleId: 'h-new',
      activeOwnerAttrs: POD_A,
    });
    expect(ipsByHandleInBlock(next, 'h')).toEqual(['10.0.0.1', '10.0.0.3']);
    expect(ipsByHandleInBlock(next, 'h-new')).toEqual(['10.0.0.2']);
    expect(next.attributes[0]).toEqual({ handleId: 'h', activeOwnerAttrs: POD_A });
    expect(next.unallocated).toEqual(block.unallocated);
    expect(next.sequenceNumberForAllocation['2']).toBe(50n);
    expect(findBlockProblems(next)).toEqual([]);
  });

  it('moving the only address of a record prunes the old record', () => {
    const next = moveIpToHandleInBlock(block, {
      ip: '10.0.0.4',
      handleId: 'h2',
      newHandleId: 'h3',
      expectedOwner: { namespace: 'ns', name: 'b' },
    });
    expect(next.attributes.some((a) => a.handleId === 'h2')).toBe(false);
    expect(findBlockProblems(next)).toEqual([]);
  });

  it.each([
    [
      'an empty expected owner',
      {
        ip: '10.0.0.1',
        handleId: 'h',
        newHandleId: 'n',
        expectedOwner: { namespace: '', name: '' },
      },
      'InvalidArgument',
    ],
    [
      'an empty new handle',
      { ip: '10.0.0.1', handleId: 'h', newHandleId: '', expectedOwner: owner },
      'InvalidArgument',
    ],
    [
      'a free address',
      { ip: '10.0.0.6', handleId: 'h', newHandleId: 'n', expectedOwner: owner },
      'DoesNotExist',
    ],
    [
      'an address in cooldown',
      { ip: '10.0.0.5', handleId: 'h', newHandleId: 'n', expectedOwner: owner },
      'InvalidArgument',
    ],
    [
      'the wrong handle',
      { ip: '10.0.0.4', handleId: 'h', newHandleId: 'n', expectedOwner: owner },
      'InvalidArgument',
    ],
    [
      'the wrong owner',
      {
        ip: '10.0.0.1',
        handleId: 'h',
        newHandleId: 'n',
        expectedOwner: { namespace: 'ns', name: 'b' },
      },
      'PreconditionFailed',
    ],
  ])('%s -> %s', (_, a, code) => {
    expect(thrown(() => moveIpToHandleInBlock(block, a))).toMatchObject({ code });
  });
});
