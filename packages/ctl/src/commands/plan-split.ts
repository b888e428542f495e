import { formatCidr, parseCidr } from '@netledger/accounting';
import type { Cidr } from '@netledger/accounting';
import type { IPPool } from '@netledger/ipam-core';
import { validatePool } from '@netledger/ipam-core';
import { CtlError } from '../ctl-error.js';

/** What {@link planSplit} decides: the pool to split and its validated children, in order. */
export interface SplitPlan {
  readonly pool: IPPool;
  readonly children: readonly IPPool[];
}

/** Options of {@link planSplit}: the pools as listed, the pool by name or CIDR, and the parts. */
export interface PlanSplitOptions {
  readonly pools: readonly IPPool[];
  /** A power of two, at least 2 (from {@link parseSplitParts}). */
  readonly parts: number;
  readonly name?: string;
  readonly cidr?: string;
  /** For the children's `Allocatable` condition. */
  readonly nowMs: number;
}

/**
 * The number of pools of `ipam split N`: a power of two, at least 2. Throws `InvalidInput`
 * naming the text otherwise.
 */
export function parseSplitParts(text: string): number {
  const n = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n) || n < 2 || (n & (n - 1)) !== 0) {
    throw new CtlError(
      'InvalidInput',
      `the number of pools must be a power of 2 and at least 2, got ${text}`,
    );
  }
  return n;
}

/** Calico's child name: `split-<old>-<i>`, the old name cut to 245 characters if too long. */
function childName(old: string, i: number): string {
  const name = `split-${old}-${i}`;
  return name.length > 253 ? `split-${old.slice(0, 245)}-${i}` : name;
}

function tryCanonical(text: string): string | undefined {
  try {
    return formatCidr(parseCidr(text, { strict: false }));
  } catch {
    return undefined;
  }
}

/** The pool named, or whose CIDR is the one given (compared canonically); `Failed` if none. */
function findPool(o: PlanSplitOptions): IPPool {
  const wanted = o.cidr !== undefined ? tryCanonical(o.cidr) : undefined;
  const pool = o.pools.find((p) =>
    o.name !== undefined ? p.metadata.name === o.name : tryCanonical(p.spec.cidr) === wanted,
  );
  if (!pool) {
    throw new CtlError('Failed', `IP pool ${o.name ?? o.cidr} does not exist`);
  }
  return pool;
}

/** The children's CIDRs: `parts` equal parts of the pool's, refused when smaller than a block. */
function childCidrs(pool: IPPool, parts: number): string[] {
  const cidr: Cidr = parseCidr(pool.spec.cidr);
  const bits = cidr.version === 4 ? 32 : 128;
  const prefix = cidr.prefix + Math.log2(parts);
  if (prefix > bits) {
    throw new CtlError('InvalidInput', `cannot split ${pool.spec.cidr} into ${parts} pools`);
  }
  const blockSize = pool.spec.blockSize ?? (cidr.version === 4 ? 26 : 122);
  if (prefix > blockSize) {
    throw new CtlError(
      'InvalidInput',
      `cannot split ${pool.spec.cidr} into ${parts} pools: each /${prefix} would be smaller than a block (/${blockSize})`,
    );
  }
  const step = 1n << BigInt(bits - prefix);
  return Array.from({ length: parts }, (_, i) =>
    formatCidr({ version: cidr.version, base: cidr.base + step * BigInt(i), prefix }),
  );
}

/** A child: a copy of the pool's spec (enabled) and metadata (without the server's fields). */
function childPool(pool: IPPool, o: { name: string; cidr: string; nowMs: number }): IPPool {
  const {
    resourceVersion: _rv,
    uid: _uid,
    creationTimestamp: _ct,
    generation: _g,
    ...meta
  } = pool.metadata;
  return {
    metadata: { ...meta, name: o.name },
    spec: { ...pool.spec, cidr: o.cidr, disabled: false },
    status: {
      conditions: [
        {
          type: 'Allocatable',
          status: 'True',
          reason: 'OK',
          message: 'IPPool is available for IP allocation.',
          lastTransitionTime: new Date(o.nowMs).toISOString(),
        },
      ],
    },
  };
}

/**
 * Plans `ipam split` without writing: finds the pool (`Failed` if absent), cuts its CIDR into
 * `parts` children named `split-<name>-<i>` (`InvalidInput` if a child would be smaller than a
 * block), validates each against the other pools and the children before it, and refuses
 * (`Failed`) a child whose name an existing pool has.
 */
export function planSplit(o: PlanSplitOptions): SplitPlan {
  const pool = findPool(o);
  const others = o.pools.filter((p) => p.metadata.name !== pool.metadata.name);
  const children: IPPool[] = [];
  for (const [i, cidr] of childCidrs(pool, o.parts).entries()) {
    const child = childPool(pool, { name: childName(pool.metadata.name, i), cidr, nowMs: o.nowMs });
    children.push({ ...validatePool(child, [...others, ...children]), status: child.status });
  }
  for (const c of children) {
    if (o.pools.some((p) => p.metadata.name === c.metadata.name)) {
      throw new CtlError('Failed', `IP pool ${c.metadata.name} already exists`);
    }
  }
  return { pool, children };
}
