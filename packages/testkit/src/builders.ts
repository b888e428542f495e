import type { AllocationAttribute, AllocationBlock, IPPool } from '@netledger/ipam-core';

/** A sequence number above 2^53, as Calico seeds them from Unix nanoseconds. */
export const BIG_SEQUENCE = 1767225600000000001n;

/**
 * Builds blocks for tests: `new BlockBuilder('10.0.0.0/30').allocate([0, 1], 'h1').build()`.
 * Ordinal counts assume an IPv4 CIDR or an IPv6 prefix of /96 or longer.
 */
export class BlockBuilder {
  private readonly size: number;
  private allocations: (number | null)[];
  private attributes: AllocationAttribute[] = [];
  private affinity: string | undefined;
  private sequenceNumber = BIG_SEQUENCE;
  private readonly seqs: Record<string, bigint> = {};

  constructor(private readonly cidr: string) {
    const prefix = Number(cidr.split('/')[1]);
    this.size = 2 ** ((cidr.includes(':') ? 128 : 32) - prefix);
    this.allocations = Array.from({ length: this.size }, () => null);
  }

  /** Sets the affinity (`host:<name>`). */
  affine(host: string): this {
    this.affinity = `host:${host}`;
    return this;
  }

  /** Sets the block sequence number. */
  sequence(n: bigint): this {
    this.sequenceNumber = n;
    return this;
  }

  /** Allocates `ordinals` to `handleId` with `attrs`, sharing one attribute record. */
  allocate(ordinals: number[], handleId: string, attrs?: Record<string, string>): this {
    const idx = this.attributes.push({ handleId, ...(attrs && { activeOwnerAttrs: attrs }) }) - 1;
    for (const o of ordinals) {
      this.allocations[o] = idx;
      this.seqs[String(o)] = this.sequenceNumber;
    }
    return this;
  }

  build(): AllocationBlock {
    const unallocated = this.allocations.flatMap((a, i) => (a === null ? [i] : []));
    return {
      cidr: this.cidr,
      ...(this.affinity && { affinity: this.affinity }),
      allocations: [...this.allocations],
      unallocated,
      attributes: [...this.attributes],
      sequenceNumber: this.sequenceNumber,
      sequenceNumberForAllocation: { ...this.seqs },
      deleted: false,
    };
  }
}

/** An IPPool resource as a user would write it. */
export function buildPool(name: string, cidr: string, spec: Partial<IPPool['spec']> = {}): IPPool {
  return { metadata: { name }, spec: { cidr, ...spec } };
}
