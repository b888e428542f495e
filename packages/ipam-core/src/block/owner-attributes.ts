import { IpamError } from '../errors.js';
import type { AllocationAttribute, AllocationBlock } from '../model/block.js';
import { attributeOf, findOrAddAttribute, handleOf } from './block-attributes.js';
import { blockGeometry, ipToOrdinal } from './block-geometry.js';
import { pruneAttributes } from './garbage-collect.js';

/** The owner of an allocation: a pod in a namespace. */
export interface AttributeOwner {
  readonly namespace: string;
  readonly name: string;
}

/** Changes to an allocation's owners; `clear*` and the matching attrs are mutually exclusive. */
export interface OwnerAttributeUpdates {
  readonly activeOwnerAttrs?: Readonly<Record<string, string>>;
  readonly clearActiveOwner?: boolean;
  readonly alternateOwnerAttrs?: Readonly<Record<string, string>>;
  readonly clearAlternateOwner?: boolean;
}

/** Conditions the current owners must meet for an update to apply. */
export interface OwnerAttributePreconditions {
  readonly expectedActiveOwner?: AttributeOwner;
  readonly verifyActiveOwnerEmpty?: boolean;
  readonly expectedAlternateOwner?: AttributeOwner;
  readonly verifyAlternateOwnerEmpty?: boolean;
}

const EMPTY_OWNER: AttributeOwner = { namespace: '', name: '' };

/** True when `attrs` belong to `owner` (the empty owner matches absent or empty attrs). */
export function ownerMatches(
  owner: AttributeOwner,
  attrs: Readonly<Record<string, string>> | undefined,
): boolean {
  if (owner.name === '' && owner.namespace === '') return !attrs || Object.keys(attrs).length === 0;
  return attrs?.pod === owner.name && attrs?.namespace === owner.namespace;
}

const describeOwner = (attrs?: Readonly<Record<string, string>>): string =>
  `pod=${attrs?.pod ?? ''} namespace=${attrs?.namespace ?? ''}`;

/** Validates an update before any I/O; `InvalidArgument` for mutually exclusive options. */
export function validateOwnerUpdate(
  u: OwnerAttributeUpdates | undefined,
  p: OwnerAttributePreconditions = {},
): void {
  if (!u) throw new IpamError('InvalidArgument', 'updates cannot be nil');
  const exclusive = (a: unknown, b: unknown, what: string): void => {
    if (a !== undefined && a !== false && b !== undefined && b !== false) {
      throw new IpamError('InvalidArgument', `${what} are mutually exclusive`);
    }
  };
  exclusive(u.clearActiveOwner, u.activeOwnerAttrs, 'ClearActiveOwner and ActiveOwnerAttrs');
  exclusive(
    u.clearAlternateOwner,
    u.alternateOwnerAttrs,
    'ClearAlternateOwner and AlternateOwnerAttrs',
  );
  exclusive(
    p.expectedActiveOwner,
    p.verifyActiveOwnerEmpty,
    'ExpectedActiveOwner and VerifyActiveOwnerEmpty',
  );
  exclusive(
    p.expectedAlternateOwner,
    p.verifyAlternateOwnerEmpty,
    'ExpectedAlternateOwner and VerifyAlternateOwnerEmpty',
  );
}

function check(
  field: string,
  expected: AttributeOwner | undefined,
  actual?: Readonly<Record<string, string>>,
): void {
  if (expected && !ownerMatches(expected, actual)) {
    throw new IpamError(
      'PreconditionFailed',
      `cannot set ${field}: expected pod=${expected.name} namespace=${expected.namespace} but found ${describeOwner(actual)}`,
    );
  }
}

/** Points one ordinal at an attribute equal to `attr` (never edits a shared record in place). */
function repoint(
  block: AllocationBlock,
  ordinal: number,
  attr: AllocationAttribute,
): AllocationBlock {
  const { attributes, index } = findOrAddAttribute(block.attributes, attr);
  const allocations = [...block.allocations];
  allocations[ordinal] = index;
  return pruneAttributes({ ...block, allocations, attributes });
}

/**
 * Swaps the owner attributes of one allocated address held by `handleId`, under preconditions.
 * Empty updates succeed without change. Other addresses sharing the record keep their owners.
 * Codes: `InvalidArgument` (exclusive options, wrong handle, cooling), `DoesNotExist`,
 * `PreconditionFailed`.
 */
export function setOwnerAttributesInBlock(
  block: AllocationBlock,
  args: {
    ip: string;
    handleId: string;
    updates: OwnerAttributeUpdates;
    preconditions?: OwnerAttributePreconditions;
  },
): AllocationBlock {
  // The primitive checks for itself: with both a clear flag and new attrs it would silently clear.
  validateOwnerUpdate(args.updates, args.preconditions);
  const ordinal = ipToOrdinal(blockGeometry(block.cidr), args.ip);
  const attr = attributeOf(block, ordinal);
  if (!attr)
    throw new IpamError('DoesNotExist', `IP ${args.ip} is not assigned`, { identifier: args.ip });
  if (
    attr.handleId === undefined ||
    attr.releasedAt !== undefined ||
    handleOf(attr) !== args.handleId
  ) {
    throw new IpamError(
      'InvalidArgument',
      `IP ${args.ip} is not assigned to handle ${args.handleId}`,
      { identifier: args.ip },
    );
  }
  const u = args.updates;
  const p = args.preconditions ?? {};
  const touchesActive = u.activeOwnerAttrs !== undefined || u.clearActiveOwner === true;
  const touchesAlternate = u.alternateOwnerAttrs !== undefined || u.clearAlternateOwner === true;
  if (!touchesActive && !touchesAlternate) return block;
  if (touchesActive)
    check(
      'ActiveOwnerAttrs',
      p.verifyActiveOwnerEmpty ? EMPTY_OWNER : p.expectedActiveOwner,
      attr.activeOwnerAttrs,
    );
  if (touchesAlternate) {
    check(
      'AlternateOwnerAttrs',
      p.verifyAlternateOwnerEmpty ? EMPTY_OWNER : p.expectedAlternateOwner,
      attr.alternateOwnerAttrs,
    );
  }
  const active = u.clearActiveOwner ? undefined : (u.activeOwnerAttrs ?? attr.activeOwnerAttrs);
  const alternate = u.clearAlternateOwner
    ? undefined
    : (u.alternateOwnerAttrs ?? attr.alternateOwnerAttrs);
  return repoint(block, ordinal, {
    handleId: attr.handleId,
    ...(active && { activeOwnerAttrs: { ...active } }),
    ...(alternate && { alternateOwnerAttrs: { ...alternate } }),
  });
}

/**
 * Re-points one allocated address from `handleId` to `newHandleId` in place: the address is never
 * unowned and never enters cooldown. Only the current owner (`expectedOwner`, a namespace and a
 * pod) may move it.
 */
export function moveIpToHandleInBlock(
  block: AllocationBlock,
  args: { ip: string; handleId: string; newHandleId: string; expectedOwner: AttributeOwner },
): AllocationBlock {
  if (!args.expectedOwner.namespace || !args.expectedOwner.name) {
    throw new IpamError('InvalidArgument', 'expectedOwner must name a namespace and a pod');
  }
  if (!args.newHandleId) throw new IpamError('InvalidArgument', 'newHandleId must not be empty');
  const ordinal = ipToOrdinal(blockGeometry(block.cidr), args.ip);
  const attr = attributeOf(block, ordinal);
  if (!attr)
    throw new IpamError('DoesNotExist', `IP ${args.ip} is not assigned`, { identifier: args.ip });
  if (attr.releasedAt !== undefined || handleOf(attr) !== args.handleId) {
    throw new IpamError(
      'InvalidArgument',
      `IP ${args.ip} is not assigned to handle ${args.handleId}`,
      { identifier: args.ip },
    );
  }
  check('handle', args.expectedOwner, attr.activeOwnerAttrs);
  const moved = repoint(block, ordinal, { ...attr, handleId: args.newHandleId });
  return {
    ...moved,
    sequenceNumberForAllocation: {
      ...moved.sequenceNumberForAllocation,
      [String(ordinal)]: block.sequenceNumber,
    },
  };
}
