import type {
  IPPool,
  IPPoolAllowedUse,
  IPReservation,
  IpamClient,
  Node,
} from '@netledger/ipam-core';
import { CtlError } from '../ctl-error.js';

/** Flags of `ippool create` and `ippool update` (undefined: not given). */
export interface PoolFlags {
  readonly cidr?: string;
  readonly blockSize?: string;
  readonly nodeSelector?: string;
  readonly namespaceSelector?: string;
  readonly allowedUses?: string;
  readonly assignmentMode?: string;
  readonly disabled?: boolean;
}

const ALLOWED_USES: readonly string[] = ['Workload', 'Tunnel', 'LoadBalancer'];

function parseBlockSize(text: string): number {
  if (!/^\d+$/.test(text)) {
    throw new CtlError(
      'InvalidInput',
      `--block-size must be a number, got ${JSON.stringify(text)}`,
    );
  }
  return Number(text);
}

function parseAllowedUses(text: string): IPPoolAllowedUse[] {
  const uses = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  for (const u of uses) {
    if (!ALLOWED_USES.includes(u)) {
      throw new CtlError(
        'InvalidInput',
        `unknown allowed use ${JSON.stringify(u)} (Workload, Tunnel or LoadBalancer)`,
      );
    }
  }
  return uses as IPPoolAllowedUse[];
}

function specFromFlags(f: PoolFlags): Partial<IPPool['spec']> {
  return {
    ...(f.cidr !== undefined && { cidr: f.cidr }),
    ...(f.blockSize !== undefined && { blockSize: parseBlockSize(f.blockSize) }),
    ...(f.nodeSelector !== undefined && { nodeSelector: f.nodeSelector }),
    ...(f.namespaceSelector !== undefined && { namespaceSelector: f.namespaceSelector }),
    ...(f.allowedUses !== undefined && { allowedUses: parseAllowedUses(f.allowedUses) }),
    ...(f.assignmentMode !== undefined && {
      assignmentMode: f.assignmentMode as IPPool['spec']['assignmentMode'],
    }),
    ...(f.disabled !== undefined && { disabled: f.disabled }),
  };
}

/** `ippool create`: validated by the library (CIDR, block size, overlap with stored pools). */
export async function createPool(
  ipam: IpamClient,
  name: string,
  flags: PoolFlags,
): Promise<{ text: string; data: IPPool }> {
  if (!flags.cidr) throw new CtlError('Usage', 'ippool create needs --cidr');
  const spec = specFromFlags(flags) as IPPool['spec'];
  const data = await ipam.pools.create({ metadata: { name }, spec });
  return { text: `Successfully created IPPool ${name} (${data.spec.cidr})\n`, data };
}

/** `ippool update NAME`: changes the given fields (CIDR and block size are immutable). */
export async function updatePool(
  ipam: IpamClient,
  name: string,
  flags: PoolFlags,
): Promise<{ text: string; data: IPPool }> {
  const current = await ipam.pools.get(name);
  const { resourceVersion: _rv, ...metadata } = current.metadata;
  const data = await ipam.pools.update({
    ...current,
    metadata,
    spec: { ...current.spec, ...specFromFlags(flags) },
  });
  return { text: `Successfully updated IPPool ${name}\n`, data };
}

/** `node create NAME [--label k=v]...` */
export async function createNode(
  ipam: IpamClient,
  name: string,
  labels: Readonly<Record<string, string>>,
): Promise<{ text: string; data: Node }> {
  const data = await ipam.nodes.create({
    metadata: { name, ...(Object.keys(labels).length > 0 && { labels }) },
  });
  return { text: `Successfully created Node ${name}\n`, data };
}

/** `reservation create NAME --cidrs C,...` */
export async function createReservation(
  ipam: IpamClient,
  name: string,
  cidrs: readonly string[],
): Promise<{ text: string; data: IPReservation }> {
  if (cidrs.length === 0) throw new CtlError('Usage', 'reservation create needs --cidrs');
  const data = await ipam.reservations.create({
    metadata: { name },
    spec: { reservedCIDRs: [...cidrs] },
  });
  return { text: `Successfully created IPReservation ${name}\n`, data };
}
