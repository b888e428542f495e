import { formatCidr, parseCidr } from '@netledger/accounting';
import type { Datastore, IPPool, IpamClient } from '@netledger/ipam-core';
import { isIpamError, validatePool } from '@netledger/ipam-core';
import { CtlError } from '../ctl-error.js';
import { isLocked, readClusterInformation } from './cluster-information.js';

/** Options of {@link splitPool}: the pool by name or CIDR, and the number of parts. */
export interface SplitOptions {
  readonly parts: string;
  readonly name?: string;
  readonly cidr?: string;
  /** For the children's `Allocatable` condition. */
  readonly nowMs: number;
}

/** Calico's child name: `split-<old>-<i>`, the old name cut to 245 characters if too long. */
function childName(old: string, i: number): string {
  const name = `split-${old}-${i}`;
  return name.length > 253 ? `split-${old.slice(0, 245)}-${i}` : name;
}

/**
 * `ipam split N --name P | --cidr C` (calicoctl's): with the datastore locked, disables the pool,
 * creates N pools `split-<name>-<i>` covering its CIDR (copies of its spec, enabled), then
 * deletes the old pool without releasing block affinities (the blocks now belong to the
 * children). N must be a power of two, at least 2, and the children no smaller than a block.
 * Everything is checked before the first write. Calico leaves the first and last lines without a
 * newline; they end in one here.
 */
export async function splitPool(
  ctx: { ipam: IpamClient; datastore: Datastore },
  o: SplitOptions,
): Promise<{ text: string; data: IPPool[] }> {
  if (o.name === undefined && o.cidr === undefined) {
    throw new CtlError('Usage', 'no name or CIDR provided: give --name or --cidr');
  }
  if (!isLocked((await readClusterInformation(ctx.datastore))?.value)) {
    throw new CtlError(
      'Refused',
      'datastore is not locked. Run the `netledgerctl datastore migrate lock` command in order split the IP pools',
    );
  }
  const n = /^\d+$/.test(o.parts) ? Number(o.parts) : NaN;
  if (!Number.isSafeInteger(n) || n < 2 || (n & (n - 1)) !== 0) {
    throw new CtlError(
      'InvalidInput',
      `the number of pools must be a power of 2 and at least 2, got ${o.parts}`,
    );
  }
  const pools = await ctx.ipam.pools.list();
  const wanted = o.cidr !== undefined ? tryCanonical(o.cidr) : undefined;
  const pool = pools.find((p) =>
    o.name !== undefined ? p.metadata.name === o.name : tryCanonical(p.spec.cidr) === wanted,
  );
  if (!pool) {
    throw new CtlError('Failed', `IP pool ${o.name ?? o.cidr} does not exist`);
  }
  const cidr = parseCidr(pool.spec.cidr);
  const bits = cidr.version === 4 ? 32 : 128;
  const extra = Math.log2(n);
  const prefix = cidr.prefix + extra;
  if (prefix > bits) {
    throw new CtlError('InvalidInput', `cannot split ${pool.spec.cidr} into ${n} pools`);
  }
  const blockSize = pool.spec.blockSize ?? (cidr.version === 4 ? 26 : 122);
  if (prefix > blockSize) {
    throw new CtlError(
      'InvalidInput',
      `cannot split ${pool.spec.cidr} into ${n} pools: each /${prefix} would be smaller than a block (/${blockSize})`,
    );
  }
  const step = 1n << BigInt(bits - prefix);
  const {
    resourceVersion: _rv,
    uid: _uid,
    creationTimestamp: _ct,
    generation: _g,
    ...meta
  } = pool.metadata;
  const children: IPPool[] = [];
  for (let i = 0; i < n; i++) {
    const child: IPPool = {
      metadata: { ...meta, name: childName(pool.metadata.name, i) },
      spec: {
        ...pool.spec,
        cidr: formatCidr({ version: cidr.version, base: cidr.base + step * BigInt(i), prefix }),
        disabled: false,
      },
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
    const others = pools.filter((p) => p.metadata.name !== pool.metadata.name);
    children.push({ ...validatePool(child, [...others, ...children]), status: child.status });
  }
  for (const c of children) {
    if (pools.some((p) => p.metadata.name === c.metadata.name)) {
      throw new CtlError('Failed', `IP pool ${c.metadata.name} already exists`);
    }
  }
  const { resourceVersion: _v, ...currentMeta } = pool.metadata;
  await ctx.ipam.pools.update({
    ...pool,
    metadata: currentMeta,
    spec: { ...pool.spec, disabled: true },
  });
  const created: IPPool[] = [];
  for (const c of children) {
    await ctx.datastore.create({ key: { kind: 'IPPool', name: c.metadata.name }, value: c });
    created.push(c);
  }
  try {
    await ctx.datastore.delete({ kind: 'IPPool', name: pool.metadata.name });
  } catch (e) {
    if (!isIpamError(e, 'DoesNotExist')) throw e;
  }
  const text =
    `IP Pool ${pool.metadata.name} was successfully split into ${n} smaller pools.\n` +
    created.map((c) => `Created ${c.metadata.name} with CIDR ${c.spec.cidr}.\n`).join('') +
    'Please refer to the documentation for final steps.\n';
  return { text, data: created };
}

function tryCanonical(text: string): string | undefined {
  try {
    return formatCidr(parseCidr(text, { strict: false }));
  } catch {
    return undefined;
  }
}
