import type { IpamConfig } from '@netledger/ipam-core';
import { CtlError } from '../ctl-error.js';

/** The resource kinds netledgerctl reads and writes (Calico's projectcalico.org/v3 names). */
export type ResourceKind = 'IPPool' | 'IPReservation' | 'Node' | 'IPAMConfiguration';

/** Every {@link ResourceKind}, in the order `get` and the help list them. */
export const RESOURCE_KINDS: readonly ResourceKind[] = [
  'IPPool',
  'IPReservation',
  'Node',
  'IPAMConfiguration',
];

/** A resource as a manifest holds it, without `apiVersion` and `kind`. */
export interface ResourceObject {
  readonly metadata: { readonly name: string; readonly [field: string]: unknown };
  readonly spec?: object;
}

// calicoctl's names for each kind (resourcemgr's registerResource), matched case-insensitively.
const ALIASES: Readonly<Record<ResourceKind, readonly string[]>> = {
  IPPool: ['ippool', 'ippools', 'ipp', 'ipps', 'pool', 'pools'],
  IPReservation: ['ipreservation', 'ipreservations', 'reservation', 'reservations'],
  Node: ['node', 'nodes', 'no', 'nos'],
  IPAMConfiguration: ['ipamconfiguration', 'ipamconfigurations', 'ipamconfig', 'ipamconfigs'],
};

/**
 * The kind a `get KIND` argument names, by calicoctl's names and plurals (`ippool`, `pools`,
 * `ipreservation`, `nodes`, `ipamconfig`, ...), case-insensitively. `Usage` error naming the
 * word and the kinds for anything else.
 */
export function parseResourceKind(word: string): ResourceKind {
  const lower = word.toLowerCase();
  const kind = RESOURCE_KINDS.find((k) => ALIASES[k].includes(lower));
  if (kind) return kind;
  throw new CtlError(
    'Usage',
    `resource type ${JSON.stringify(word)} is not supported (${RESOURCE_KINDS.map((k) => ALIASES[k][0]).join(', ')})`,
  );
}

/** The one IPAMConfiguration (`default`) as a resource, its spec the configuration in force. */
export function ipamConfigResource(c: IpamConfig): ResourceObject {
  return { metadata: { name: 'default' }, spec: { ...c } };
}

/** A resource with `apiVersion` and `kind` first, as a manifest carries it. */
export function withTypeMeta(kind: ResourceKind, r: object): Record<string, unknown> {
  return { apiVersion: 'projectcalico.org/v3', kind, ...r };
}
