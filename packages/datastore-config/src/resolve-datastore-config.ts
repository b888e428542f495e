import type { DatastoreConfig, EtcdDatastoreConfig } from './datastore-config.js';
import { DatastoreConfigError } from './datastore-config-error.js';
import type { SettingKey, SettingsSource } from './settings-source.js';

const invalid = (message: string): DatastoreConfigError =>
  new DatastoreConfigError('InvalidValue', message);

/** A setting's value and what its source calls it. */
interface Picked {
  readonly value: string;
  readonly name: string;
  readonly source: SettingsSource;
}

/** Reads settings key by key from sources in precedence order. */
function reader(sources: readonly SettingsSource[]) {
  const pick = (key: SettingKey): Picked | undefined => {
    for (const source of sources) {
      const value = source.values[key];
      if (value !== undefined) return { value, name: source.names[key] ?? key, source };
    }
    return undefined;
  };
  return {
    pick,
    value: (key: SettingKey): string | undefined => pick(key)?.value,
    /** Every name the sources have for `key`, in precedence order. */
    names: (key: SettingKey): string[] =>
      sources.flatMap((s) => (s.names[key] !== undefined ? [s.names[key]] : [])),
  };
}

function etcdConfig(read: ReturnType<typeof reader>): EtcdDatastoreConfig {
  const discovery = read.pick('etcdDiscoverySrv');
  if (discovery !== undefined) {
    throw new DatastoreConfigError(
      'Unsupported',
      `${discovery.name} is not supported: list the members in ${discovery.source.names.etcdEndpoints ?? 'the etcd endpoints'}`,
    );
  }
  const authority = read.value('etcdAuthority');
  const endpoints =
    read.value('etcdEndpoints') ??
    (authority !== undefined ? `${read.value('etcdScheme') ?? 'http'}://${authority}` : undefined);
  if (endpoints === undefined) {
    throw invalid(
      `datastore type etcdv3 needs etcd endpoints (${read.names('etcdEndpoints').join(' or ')})`,
    );
  }
  const transport = read.pick('etcdTransport');
  if (transport !== undefined && transport.value !== 'http' && transport.value !== 'grpc') {
    throw invalid(
      `${transport.name} must be "http" or "grpc", not ${JSON.stringify(transport.value)}`,
    );
  }
  const ca = read.value('etcdCACertFile');
  const cert = read.value('etcdCertFile');
  const key = read.value('etcdKeyFile');
  const username = read.value('etcdUsername');
  const password = read.value('etcdPassword');
  const tls = {
    ...(ca !== undefined && { ca }),
    ...(cert !== undefined && { cert }),
    ...(key !== undefined && { key }),
  };
  return {
    type: 'etcdv3',
    endpoints,
    ...(Object.keys(tls).length > 0 && { tls }),
    ...(username !== undefined && { username }),
    ...(password !== undefined && { password }),
    ...(transport !== undefined && { transport: transport.value as 'http' | 'grpc' }),
  };
}

/**
 * The store configuration the sources describe. Each setting is taken from the first source
 * that sets it (so `[netconf, env]` is calico-ipam's rule: a netconf key, else its environment
 * variable; a calicoctl config file is a source of its own that replaces the environment).
 * The type defaults to `file`; etcd endpoints come from `etcd_endpoints` or `etcd_authority` +
 * `etcd_scheme` (default `http`); a kubeconfig is optional (in-cluster without one).
 *
 * Throws a {@link DatastoreConfigError} naming the setting as its source calls it:
 * `InvalidValue` for an unknown type, etcd without endpoints or an `etcd_transport` other than
 * `http` or `grpc`; `Unsupported` for `etcd_discovery_srv`. Endpoints are checked when the store
 * is opened, by the etcd package.
 */
export function resolveDatastoreConfig(sources: readonly SettingsSource[]): DatastoreConfig {
  const read = reader(sources);
  const type = read.pick('datastoreType');
  switch (type?.value ?? 'file') {
    case 'file': {
      const path = read.value('datastorePath');
      return { type: 'file', ...(path !== undefined && { path }) };
    }
    case 'etcdv3':
      return etcdConfig(read);
    case 'kubernetes': {
      const kubeconfig = read.value('kubeconfig');
      const calicoApiGroup = read.value('calicoAPIGroup');
      return {
        type: 'kubernetes',
        ...(kubeconfig !== undefined && { kubeconfig }),
        ...(calicoApiGroup !== undefined && { calicoApiGroup }),
      };
    }
    default:
      throw invalid(
        `${type?.name ?? 'datastore type'}: unknown datastore type ${JSON.stringify(type?.value)} (file, etcdv3 or kubernetes)`,
      );
  }
}
