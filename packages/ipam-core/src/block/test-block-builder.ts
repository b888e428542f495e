import type { AllocationAttribute, AllocationBlock } from '../model/block.js';
import { blockGeometry } from './block-geometry.js';

/** A block sequence number above 2^53, as Calico seeds them from Unix nanoseconds. */
export const BIG_SEQUENCE = 1767225600000000001n;

/**
 * Test builder for blocks (ipam-core cannot use testkit's, which depends on ipam-core):
 * `new TestBlockBuilder('10.0.0.0/26').allocate([0, 1], 'h1').build()`. Each `allocate` or
 * `coolDown` call adds one attribute record shared by its ordinals, unless `attribute` names an
 * existing index. Free ordinals are queued in ascending order unless `freeOrder` sets the queue.
 */
export class TestBlockBuilder {
  private readonly size: number;
  private readonly allocations: (number | null)[];
  private readonly attributes: AllocationAttribute[] = [];
  private readonly seqs: Record<string, bigint> = {};
  private affinity: string | undefined;
  private sequenceNumber = BIG_SEQUENCE;
  private queue: number[] | undefined;

  constructor(private readonly cidr: string) {
    this.size = blockGeometry(cidr).size;
    this.allocations = Array.from({ length: this.size }, () => null);
  }

  /** Sets the affinity (`host:<name>` or `virtual:<name>`). */
  affine(affinity: string): this {
    this.affinity = affinity;
    return this;
  }

  /** Sets the block sequence number (used for the ordinals allocated after this call). */
  sequence(n: bigint): this {
    this.sequenceNumber = n;
    return this;
  }

  /** Adds an attribute record nothing points at (garbage for GC to prune); returns its index via `this`. */
  attribute(attr: AllocationAttribute): this {
    this.attributes.push(attr);
    return this;
  }

  /** Allocates `ordinals` to `handleId` (with `attrs`) through one new attribute, or attribute `opts.attribute`. */
  allocate(
    ordinals: readonly number[],
    handleId?: string,
    attrs?: Record<string, string>,
    opts: { seq?: bigint; attribute?: number } = {},
  ): this {
    const idx =
      opts.attribute ??
      this.attributes.push({
        ...(handleId !== undefined && { handleId }),
        ...(attrs && { activeOwnerAttrs: attrs }),
      }) - 1;
    for (const o of ordinals) {
      this.allocations[o] = idx;
      this.seqs[String(o)] = opts.seq ?? this.sequenceNumber;
    }
    return this;
  }

  /** Puts `ordinals` in cooldown, released at `releasedAt` (RFC 3339). */
  coolDown(ordinals: readonly number[], releasedAt: string): this {
    const idx = this.attributes.push({ releasedAt }) - 1;
    for (const o of ordinals) {
      this.allocations[o] = idx;
      this.seqs[String(o)] = this.sequenceNumber;
    }
    return this;
  }

  /** Sets the free queue explicitly (it must list exactly the free ordinals). */
  freeOrder(queue: readonly number[]): this {
    this.queue = [...queue];
    return this;
  }

  build(): AllocationBlock {
    const free = this.allocations.flatMap((a, i) => (a === null ? [i] : []));
    return {
      cidr: this.cidr,
      ...(this.affinity !== undefined && { affinity: this.affinity }),
      allocations: [...this.allocations],
      unallocated: this.queue ?? free,
      attributes: this.attributes.map((a) => ({ ...a })),
      sequenceNumber: this.sequenceNumber,
      sequenceNumberForAllocation: { ...this.seqs },
      deleted: false,
    };
  }
}

/** Freezes a value and everything reachable from it, so a test fails if code mutates its input. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as object)) deepFreeze(v);
  }
  return value;
}

/** Runs `fn` and returns the IpamError-like thing it threw (fails the test if it did not throw). */
export function thrown(fn: () => unknown): { code?: string; message: string; identifier?: string } {
  try {
    fn();
  } catch (e) {
    return e as { code?: string; message: string; identifier?: string };
  }
  throw new Error('expected an error, none was thrown');
}
