// Where each kind's objects live on the API server, for one Calico API group, and what the
// messages call them. Pure.
import type { DatastoreKey, Kind } from '@netledger/ipam-core';
import type { CrdGroup } from './calico-api-group.js';
import { alternateAffinityName } from './calico-names.js';
import type { CrdKind } from './crd-kinds.js';
import { crdPath, describeObject, objectName } from './crd-kinds.js';

const NODES = '/api/v1/nodes';

/** The paths and names of one group's objects. */
export interface KubePaths {
  /** The object a key names, for messages (`ipamblocks/10-0-0-0-26`). */
  readonly describe: (key: DatastoreKey) => string;
  /** The kind's resource (`ipamblocks`, `nodes`). */
  readonly resourceOf: (kind: Kind) => string;
  /** The path of the key's object under its Calico name. */
  readonly pathOf: (key: DatastoreKey) => string;
  /** The path of an object of the key's kind named `name`. */
  readonly pathAt: (key: DatastoreKey, name: string) => string;
  /** The names a key's object may have: Calico's, and for affinities netledger's alternate. */
  readonly namesOf: (key: DatastoreKey) => [string, string?];
  /** The kind's collection path. */
  readonly collectionOf: (kind: Kind) => string;
}

/** The paths of `group`'s objects (Nodes are the core API's). */
export function createKubePaths(group: CrdGroup): KubePaths {
  const pathAt = (key: DatastoreKey, name: string): string =>
    key.kind === 'Node'
      ? `${NODES}/${encodeURIComponent(name)}`
      : crdPath(group, key.kind as CrdKind, name);
  return {
    describe: (key) => describeObject(group, key),
    resourceOf: (kind) => (kind === 'Node' ? 'nodes' : group.names[kind as CrdKind].plural),
    pathOf: (key) => pathAt(key, key.kind === 'Node' ? key.name : objectName(key)),
    pathAt,
    namesOf: (key) =>
      key.kind === 'BlockAffinity'
        ? [objectName(key), alternateAffinityName(key.host, key.affinityType, key.cidr)]
        : [objectName(key)],
    collectionOf: (kind) => (kind === 'Node' ? NODES : crdPath(group, kind as CrdKind)),
  };
}
