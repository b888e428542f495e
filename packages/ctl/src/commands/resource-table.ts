import { renderColumns } from '../format/columns.js';
import type { ResourceKind, ResourceObject } from './resource-kind.js';

/** One column of a resource listing. */
interface Column {
  readonly header: string;
  cell(r: ResourceObject): string;
}

const text = (v: unknown, fallback = ''): string =>
  v === undefined || v === null ? fallback : typeof v === 'string' ? v : JSON.stringify(v);
const spec = (r: ResourceObject): Readonly<Record<string, unknown>> =>
  (r.spec ?? {}) as Readonly<Record<string, unknown>>;
const bgp = (r: ResourceObject): Readonly<Record<string, unknown>> =>
  (spec(r).bgp as Record<string, unknown> | undefined) ?? {};
const pairs = (m: unknown): string =>
  Object.entries((m as Record<string, string> | undefined) ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join(',');

const NAME: Column = { header: 'NAME', cell: (r) => r.metadata.name };
const LABELS: Column = { header: 'LABELS', cell: (r) => pairs(r.metadata.labels) };
const CREATED: Column = {
  header: 'CREATED',
  cell: (r) => text(r.metadata.creationTimestamp),
};

/**
 * The columns of each kind: the listing (`table`) and `-o wide`, which adds the fields calicoctl's
 * wide listing shows (NAT, IPIP and VXLAN modes, BGP export for pools; ASN and BGP addresses for
 * nodes) and the rest of what IPAM reads.
 */
const COLUMNS: Readonly<Record<ResourceKind, { table: Column[]; wide: Column[] }>> = {
  IPPool: {
    table: [
      NAME,
      { header: 'CIDR', cell: (r) => text(spec(r).cidr) },
      { header: 'BLOCKSIZE', cell: (r) => text(spec(r).blockSize) },
      { header: 'SELECTOR', cell: (r) => text(spec(r).nodeSelector) },
      {
        header: 'ALLOWEDUSES',
        cell: (r) => ((spec(r).allowedUses as string[] | undefined) ?? []).join(','),
      },
      { header: 'DISABLED', cell: (r) => String(spec(r).disabled === true) },
    ],
    wide: [
      { header: 'NAMESPACESELECTOR', cell: (r) => text(spec(r).namespaceSelector) },
      { header: 'ASSIGNMENTMODE', cell: (r) => text(spec(r).assignmentMode, 'Automatic') },
      { header: 'NAT', cell: (r) => String(spec(r).natOutgoing === true) },
      { header: 'IPIPMODE', cell: (r) => text(spec(r).ipipMode, 'Never') },
      { header: 'VXLANMODE', cell: (r) => text(spec(r).vxlanMode, 'Never') },
      { header: 'DISABLEBGPEXPORT', cell: (r) => String(spec(r).disableBGPExport === true) },
      LABELS,
      CREATED,
    ],
  },
  IPReservation: {
    table: [
      NAME,
      {
        header: 'RESERVEDCIDRS',
        cell: (r) => ((spec(r).reservedCIDRs as string[] | undefined) ?? []).join(','),
      },
    ],
    wide: [LABELS, CREATED],
  },
  Node: {
    table: [NAME, LABELS],
    wide: [
      { header: 'ASN', cell: (r) => text(bgp(r).asNumber) },
      { header: 'IPV4', cell: (r) => text(bgp(r).ipv4Address) },
      { header: 'IPV6', cell: (r) => text(bgp(r).ipv6Address) },
      { header: 'IPV4IPIPTUNNEL', cell: (r) => text(bgp(r).ipv4IPIPTunnelAddr) },
      { header: 'IPV4VXLANTUNNEL', cell: (r) => text(spec(r).ipv4VXLANTunnelAddr) },
      { header: 'IPV6VXLANTUNNEL', cell: (r) => text(spec(r).ipv6VXLANTunnelAddr) },
      CREATED,
    ],
  },
  IPAMConfiguration: {
    table: [
      NAME,
      { header: 'STRICTAFFINITY', cell: (r) => text(spec(r).strictAffinity) },
      { header: 'AUTOALLOCATEBLOCKS', cell: (r) => text(spec(r).autoAllocateBlocks) },
    ],
    wide: [
      { header: 'MAXBLOCKSPERHOST', cell: (r) => text(spec(r).maxBlocksPerHost) },
      { header: 'IPCOOLDOWNSECONDS', cell: (r) => text(spec(r).ipCooldownSeconds) },
      {
        header: 'KUBEVIRTVMADDRESSPERSISTENCE',
        cell: (r) => text(spec(r).kubeVirtVMAddressPersistence),
      },
    ],
  },
};

/**
 * The listing of resources of one kind (calicoctl `get` style columns); `wide` adds the wide
 * columns after the usual ones. A header line even when there are none.
 */
export function renderResourceTable(
  kind: ResourceKind,
  items: readonly ResourceObject[],
  wide: boolean,
): string {
  const { table, wide: more } = COLUMNS[kind];
  const columns = wide ? [...table, ...more] : table;
  return renderColumns(
    columns.map((c) => c.header),
    items.map((r) => columns.map((c) => c.cell(r))),
  );
}
