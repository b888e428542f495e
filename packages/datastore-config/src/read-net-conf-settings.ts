import { DatastoreConfigError } from './datastore-config-error.js';
import type { SettingsSource } from './settings-source.js';
import { settingsFrom } from './settings-source.js';

/** A CNI network configuration: its top level and its `ipam` object. */
export interface NetConfObjects {
  readonly top: Readonly<Record<string, unknown>>;
  readonly ipam: Readonly<Record<string, unknown>>;
}

const NETCONF_NAMES = {
  datastoreType: 'datastore_type',
  datastorePath: 'datastore_path',
  etcdEndpoints: 'etcd_endpoints',
  etcdDiscoverySrv: 'etcd_discovery_srv',
  etcdAuthority: 'etcd_authority',
  etcdScheme: 'etcd_scheme',
  etcdCACertFile: 'etcd_ca_cert_file',
  etcdCertFile: 'etcd_cert_file',
  etcdKeyFile: 'etcd_key_file',
  etcdUsername: 'etcd_username',
  etcdPassword: 'etcd_password',
  etcdTransport: 'etcd_transport',
  kubeconfig: 'kubernetes.kubeconfig',
} as const;

const wrongType = (name: string, want: string, v: unknown): DatastoreConfigError =>
  new DatastoreConfigError(
    'WrongType',
    `${name} must be a JSON ${want}, got ${Array.isArray(v) ? 'array' : typeof v}`,
  );

/** `parent[key]` of the first of `ipam` and `top` that has it (where calico-ipam reads it). */
function lookup(netconf: NetConfObjects, path: readonly string[]): unknown {
  for (const root of [netconf.ipam, netconf.top]) {
    let v: unknown = root;
    for (const [i, key] of path.entries()) {
      if (v === undefined || v === null) break;
      if (typeof v !== 'object' || Array.isArray(v)) throw wrongType(path[i - 1]!, 'object', v);
      v = (v as Record<string, unknown>)[key];
    }
    if (v !== undefined && v !== null) return v;
  }
  return undefined;
}

/**
 * The store settings of a CNI network configuration, with calico-ipam's keys (`datastore_type`,
 * `etcd_endpoints`, `etcd_authority` + `etcd_scheme`, `etcd_discovery_srv`, `etcd_ca_cert_file`,
 * `etcd_cert_file`, `etcd_key_file`, `etcd_username`, `etcd_password`, `kubernetes.kubeconfig`)
 * and netledger's (`datastore_path`, `etcd_transport`). Each is read from the `ipam` object
 * first, then from the top level; an empty string is unset. Throws `WrongType` for a value that
 * is not a JSON string (or a `kubernetes` that is not an object).
 */
export function readNetConfSettings(netconf: NetConfObjects): SettingsSource {
  return settingsFrom(NETCONF_NAMES, (name) => {
    const v = lookup(netconf, name.split('.'));
    if (v === undefined || typeof v === 'string') return v;
    throw wrongType(name, 'string', v);
  });
}
