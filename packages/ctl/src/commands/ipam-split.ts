import type { Datastore, IPPool, IpamClient } from '@netledger/ipam-core';
import { isIpamError } from '@netledger/ipam-core';
import { CtlError } from '../ctl-error.js';
import { isLocked, readClusterInformation } from './cluster-information.js';
import { parseSplitParts, planSplit } from './plan-split.js';

/** Options of {@link splitPool}: the pool by name or CIDR, and the number of parts. */
export interface SplitOptions {
  readonly parts: string;
  readonly name?: string;
  readonly cidr?: string;
  /** For the children's `Allocatable` condition. */
  readonly nowMs: number;
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
  const parts = parseSplitParts(o.parts);
  const { pool, children } = planSplit({
    pools: await ctx.ipam.pools.list(),
    parts,
    nowMs: o.nowMs,
    ...(o.name !== undefined && { name: o.name }),
    ...(o.cidr !== undefined && { cidr: o.cidr }),
  });
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
    `IP Pool ${pool.metadata.name} was successfully split into ${parts} smaller pools.\n` +
    created.map((c) => `Created ${c.metadata.name} with CIDR ${c.spec.cidr}.\n`).join('') +
    'Please refer to the documentation for final steps.\n';
  return { text, data: created };
}
