import { parseCidr, parseIp } from '@netledger/accounting';
import { isIpamError } from '@netledger/ipam-core';
import type { Datastore, IpamClient, PoolUtilization } from '@netledger/ipam-core';
import { blockAllocations } from '@netledger/ipam-core/block';
import { CtlError } from '../ctl-error.js';
import { formatCount, formatCountShare } from '../format/cells.js';
import { renderTable } from '../format/table.js';

const USAGE_HEADER = ['GROUPING', 'CIDR', 'IPS TOTAL', 'IPS IN USE', 'IPS RESERVED', 'IPS FREE'];

/**
 * `ipam show [--show-blocks]` as a table in calicoctl v3.33's layout: one `IP Pool` row per pool
 * (never for the orphaned-blocks entries, whose mask is /0), each followed by its `Block` rows
 * with `showBlocks`; orphaned blocks come last as `Block` rows. Counts are exact (Calico clamps a
 * pool's counts to MaxInt64, so a v6 /48 shows 1.2089e+24 here and 9.2234e+18 in calicoctl).
 */
export function renderUtilization(usage: readonly PoolUtilization[], showBlocks: boolean): string {
  const rows: string[][] = [];
  const row = (grouping: string, u: Omit<PoolUtilization, 'name' | 'blocks'>): string[] => [
    grouping,
    u.cidr,
    formatCount(u.capacity),
    formatCountShare(u.inUse, u.capacity),
    formatCountShare(u.reserved, u.capacity),
    formatCountShare(u.available, u.capacity),
  ];
  for (const pool of usage) {
    if (parseCidr(pool.cidr).prefix > 0) rows.push(row('IP Pool', pool));
    if (showBlocks) for (const b of pool.blocks) rows.push(row('Block', b));
  }
  return renderTable({
    header: USAGE_HEADER,
    rows,
    align: ['left', 'left', 'right', 'right', 'right', 'right'],
  });
}

/** `ipam show [--show-blocks]`: reads utilization and renders it. */
export async function showUtilization(
  ipam: IpamClient,
  options: { showBlocks: boolean },
): Promise<{ text: string; data: PoolUtilization[] }> {
  const data = await ipam.getUtilization();
  return { text: renderUtilization(data, options.showBlocks), data };
}

/** One borrowed address (`ipam show --show-borrowed`). */
export interface BorrowedIp {
  readonly ip: string;
  readonly borrowingNode: string;
  readonly block: string;
  readonly blockOwner: string;
  readonly type: string;
  readonly allocatedTo: string;
}

/**
 * `ipam show --show-borrowed` (Calico's `ShowBorrowedDetails`): every allocated address (cooling
 * ones included) whose `node` attribute differs from the block's affine host; addresses without
 * a `node` attribute are counted as unclassified and noted below the table.
 */
export async function showBorrowed(
  datastore: Datastore,
): Promise<{ text: string; data: BorrowedIp[] }> {
  const { items } = await datastore.list({ kind: 'IPAMBlock' });
  const data: BorrowedIp[] = [];
  let unclassified = 0;
  for (const { value: block } of items) {
    const parts = (block.affinity ?? '').split(':');
    const blockOwner = parts.length === 2 ? parts[1]! : '';
    for (const { ip, attrs, node } of blockAllocations(block)) {
      if (node === undefined) {
        unclassified++;
        continue;
      }
      if (node === blockOwner) continue;
      let type = attrs.type ?? '';
      let allocatedTo = '';
      if (attrs['vmi-name'] !== undefined) {
        type = 'vmi';
        allocatedTo = `${attrs.namespace ?? ''}/${attrs['vmi-name']}`;
      } else if (attrs.pod !== undefined) {
        type = 'pod';
        allocatedTo = `${attrs.namespace ?? ''}/${attrs.pod}`;
      }
      data.push({ ip, borrowingNode: node, block: block.cidr, blockOwner, type, allocatedTo });
    }
  }
  let text = renderTable({
    header: ['IP', 'BORROWING-NODE', 'BLOCK', 'BLOCK OWNER', 'TYPE', 'ALLOCATED-TO'],
    rows: data.map((b) => [b.ip, b.borrowingNode, b.block, b.blockOwner, b.type, b.allocatedTo]),
  });
  if (unclassified !== 0) {
    text += `\nNote: found ${unclassified} IP allocations without an explicit node association. Unable to determine if they are borrowed.\n`;
  }
  return { text, data };
}

/**
 * `ipam show --show-configuration`: `PROPERTY | VALUE` rows in Calico's field order, values as
 * Go's `%#v`. Calico prints the persistence field's pointer address; the value is printed here.
 */
export async function showConfiguration(
  ipam: IpamClient,
): Promise<{ text: string; data: Record<string, unknown> }> {
  const c = await ipam.getIpamConfig();
  const data = {
    StrictAffinity: c.strictAffinity,
    AutoAllocateBlocks: c.autoAllocateBlocks,
    MaxBlocksPerHost: c.maxBlocksPerHost,
    KubeVirtVMAddressPersistence: c.kubeVirtVMAddressPersistence,
    IPCooldownSeconds: c.ipCooldownSeconds,
  };
  const goValue = (v: unknown): string => (typeof v === 'string' ? JSON.stringify(v) : String(v));
  const text = renderTable({
    header: ['PROPERTY', 'VALUE'],
    rows: Object.entries(data).map(([k, v]) => [k, goValue(v)]),
  });
  return { text, data };
}

const sortedLines = (attrs: Readonly<Record<string, string>>): string =>
  Object.keys(attrs)
    .sort()
    .map((k) => `  ${k}: ${attrs[k]}\n`)
    .join('');

/**
 * `ipam show --ip IP` (Calico's `ShowIP`): `IP X is not assigned`, or its handle and owner
 * attributes (sorted). An invalid address fails `InvalidInput` ("invalid IP address"); an
 * address in cooldown fails `Failed` ("address X is in cooldown").
 */
export async function showIp(ipam: IpamClient, ip: string): Promise<{ text: string }> {
  try {
    parseIp(ip);
  } catch {
    throw new CtlError('InvalidInput', `invalid IP address: ${ip}`);
  }
  let attr;
  try {
    attr = await ipam.getAssignmentAttributes(ip);
  } catch (e) {
    if (isIpamError(e, 'DoesNotExist')) return { text: `${ip} is not assigned\n` };
    if (isIpamError(e, 'IpInCooldown'))
      throw new CtlError('Failed', `address ${ip} is in cooldown`);
    throw e;
  }
  let text = `IP ${ip} is in use\n`;
  text += `Handle ID: ${attr.handleId ?? '<none>'}\n`;
  const active = attr.activeOwnerAttrs ?? {};
  if (Object.keys(active).length === 0) text += 'No Active Owner attributes defined\n';
  else text += `Active Owner Attributes:\n${sortedLines(active)}`;
  const alternate = attr.alternateOwnerAttrs ?? {};
  if (Object.keys(alternate).length > 0) {
    text += `Alternate Owner Attributes:\n${sortedLines(alternate)}`;
  }
  return { text };
}
