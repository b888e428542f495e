import type { Datastore } from '@netledger/ipam-core';
import { CTL_VERSION } from '../version.js';
import { readClusterInformation } from './cluster-information.js';

/** What `version` reports. */
export interface VersionInfo {
  readonly clientVersion: string;
  readonly commit: string;
  /** The configured datastore's type and the cluster it holds; absent when none is configured. */
  readonly cluster?: {
    readonly datastoreType: string;
    readonly clusterVersion: string;
    readonly clusterType: string;
  };
}

// calicoctl prints each label with Println, its value starting in column 19.
const line = (label: string, value: string): string => `${`${label}:`.padEnd(18)} ${value}\n`;

/**
 * `version` as calicoctl prints it: `Client Version:`, `Git commit:`, and with a datastore its
 * type (netledger's line) and the ClusterInformation's `Cluster Version:` and `Cluster Type:`
 * (`unknown` when it has none, or there is no ClusterInformation).
 */
function renderVersion(info: VersionInfo): string {
  let text = line('Client Version', info.clientVersion) + line('Git commit', info.commit);
  if (info.cluster) {
    text +=
      line('Datastore Type', info.cluster.datastoreType) +
      line('Cluster Version', info.cluster.clusterVersion) +
      line('Cluster Type', info.cluster.clusterType);
  }
  return text;
}

/**
 * What `version` reports: this build (`commit`, `unknown` when not known) and, with a datastore,
 * its type and the ClusterInformation's Calico version and cluster type. Reads only.
 */
export async function showVersion(options: {
  readonly commit?: string;
  readonly datastore?: { readonly store: Datastore; readonly type: string };
}): Promise<{ text: string; data: VersionInfo }> {
  const { datastore } = options;
  let cluster: VersionInfo['cluster'];
  if (datastore) {
    const ci = await readClusterInformation(datastore.store);
    cluster = {
      datastoreType: datastore.type,
      clusterVersion: ci?.value.spec.calicoVersion || 'unknown',
      clusterType: ci?.value.spec.clusterType || 'unknown',
    };
  }
  const data: VersionInfo = {
    clientVersion: CTL_VERSION,
    commit: options.commit || 'unknown',
    ...(cluster && { cluster }),
  };
  return { text: renderVersion(data), data };
}
