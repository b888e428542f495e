import { resolve } from 'node:path';
import type { DatastoreConfig } from '@netledger/datastore-config';

const endpointList = (text: string): string =>
  [
    ...new Set(
      text
        .split(',')
        .map((e) => e.trim().replace(/\/+$/, '').toLowerCase())
        .filter((e) => e !== ''),
    ),
  ]
    .sort()
    .join(',');

/**
 * What says which store a configuration opens, so the node agent can tell a request on its own
 * store from one on another: the file store's path (absolute; `defaultFilePath` when the config
 * names none, as the opener does), etcd's set of endpoints (order, case, trailing slashes and
 * repeats aside; credentials and transport reach the same data), and for Kubernetes the kind
 * alone: a node belongs to one cluster, and the agent reaches it with its own credentials whatever
 * kubeconfig the plugin's config names.
 */
export function storeIdentity(config: DatastoreConfig, defaultFilePath: string): string {
  switch (config.type) {
    case 'file':
      return `file:${resolve(config.path ?? defaultFilePath)}`;
    case 'etcdv3':
      return `etcdv3:${endpointList(config.endpoints)}`;
    case 'kubernetes':
      return 'kubernetes';
  }
}
