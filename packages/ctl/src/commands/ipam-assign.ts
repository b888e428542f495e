import type { IPPoolAllowedUse, IpamClient } from '@netledger/ipam-core';
import { isIpamError, partialFulfillmentError } from '@netledger/ipam-core';
import { CtlError } from '../ctl-error.js';

/** Arguments of `ipam assign`. */
export interface AssignCommandOptions {
  readonly node: string;
  readonly handle?: string;
  /** An explicit address (AssignIP); otherwise `num4`/`num6` are auto-assigned. */
  readonly ip?: string;
  readonly num4?: number;
  readonly num6?: number;
  readonly pools?: readonly string[];
  readonly attrs?: Readonly<Record<string, string>>;
  readonly use?: IPPoolAllowedUse;
}

/** Parses repeated `key=value` flags into a record; `Usage` error on a missing `=`. */
export function parseKeyValues(items: readonly string[], flag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of items) {
    const at = item.indexOf('=');
    if (at <= 0)
      throw new CtlError('Usage', `${flag} takes key=value, got ${JSON.stringify(item)}`);
    out[item.slice(0, at)] = item.slice(at + 1);
  }
  return out;
}

/** Refuses (`InvalidInput`, naming it and the remedy) a node with no Node resource. */
async function requireNode(ipam: IpamClient, node: string): Promise<void> {
  try {
    await ipam.nodes.get(node);
  } catch (e) {
    if (!isIpamError(e, 'DoesNotExist')) throw e;
    throw new CtlError(
      'InvalidInput',
      `node ${JSON.stringify(node)} is not registered (no Node resource): create it first with 'netledgerctl node create ${node}'; nothing was assigned`,
      { cause: e },
    );
  }
}

/**
 * `ipam assign` (for scripts): assigns `ip` to the handle, or auto-assigns `num4` IPv4 and `num6`
 * IPv6 addresses on `node`. The node must be registered (a Node resource; not needed for
 * `LoadBalancer` use): otherwise `InvalidInput` naming it, nothing written. Prints one address per
 * line (auto-assigned ones with their block's mask, as Calico returns them). A short
 * auto-assignment keeps what it got and fails `Failed` with Calico's partial-fulfilment message.
 */
export async function assignAddresses(
  ipam: IpamClient,
  o: AssignCommandOptions,
): Promise<{ text: string; data: { ips: string[] } }> {
  const intendedUse = o.use ?? 'Workload';
  if (o.ip !== undefined) {
    // Auto-assignment reads the Node (its labels select pools) and so refuses a node that is not
    // registered; an explicit address must not claim a block for such a host either. Addresses
    // for load balancers belong to a virtual host that has no Node.
    if (intendedUse !== 'LoadBalancer') await requireNode(ipam, o.node);
    await ipam.assignIp({
      ip: o.ip,
      hostname: o.node,
      intendedUse,
      ...(o.handle !== undefined && { handleId: o.handle }),
      ...(o.attrs && { attrs: o.attrs }),
    });
    return { text: `${o.ip}\n`, data: { ips: [o.ip] } };
  }
  const num4 = o.num4 ?? (o.num6 ? 0 : 1);
  const num6 = o.num6 ?? 0;
  const pools = o.pools ?? [];
  const { v4, v6 } = await ipam.autoAssign({
    num4,
    num6,
    hostname: o.node,
    intendedUse,
    ...(o.handle !== undefined && { handleId: o.handle }),
    ...(o.attrs && { attrs: o.attrs }),
    ...(pools.length > 0 && {
      // A CIDR says its family; a pool name goes with the family requested.
      ipv4Pools: pools.filter((p) => !p.includes(':') && (num4 > 0 || p.includes('/'))),
      ipv6Pools: pools.filter((p) => p.includes(':') || (num4 === 0 && !p.includes('/'))),
    }),
  });
  const ips = [...v4.ips, ...v6.ips];
  const short = partialFulfillmentError(v4) ?? partialFulfillmentError(v6);
  if (short) {
    throw new CtlError(
      'Failed',
      `${short.message}${ips.length > 0 ? ` (assigned: ${ips.join(', ')})` : ''}`,
    );
  }
  return { text: ips.map((ip) => ip + '\n').join(''), data: { ips } };
}

/** `ipam release-handle`: releases every address of a handle and deletes the handle. */
export async function releaseHandle(ipam: IpamClient, handle: string): Promise<{ text: string }> {
  const ips = await ipam.ipsByHandle(handle);
  await ipam.releaseByHandle(handle);
  return { text: `Released handle ${handle} (${ips.length} address(es))\n` };
}
