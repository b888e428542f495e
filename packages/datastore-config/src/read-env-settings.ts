import type { SettingsSource } from './settings-source.js';
import { settingsFrom } from './settings-source.js';

/** An environment: libcalico's variable names. */
export type SettingsEnv = Readonly<Record<string, string | undefined>>;

const ENV_NAMES = {
  datastoreType: 'DATASTORE_TYPE',
  datastorePath: 'NETLEDGER_DATASTORE_PATH',
  etcdEndpoints: 'ETCD_ENDPOINTS',
  etcdCACertFile: 'ETCD_CA_CERT_FILE',
  etcdCertFile: 'ETCD_CERT_FILE',
  etcdKeyFile: 'ETCD_KEY_FILE',
  etcdUsername: 'ETCD_USERNAME',
  etcdPassword: 'ETCD_PASSWORD',
  kubeconfig: 'KUBECONFIG',
  calicoAPIGroup: 'CALICO_API_GROUP',
} as const;

/**
 * The store settings of an environment: libcalico's `DATASTORE_TYPE`, `ETCD_ENDPOINTS`,
 * `ETCD_CA_CERT_FILE`, `ETCD_CERT_FILE`, `ETCD_KEY_FILE`, `ETCD_USERNAME`, `ETCD_PASSWORD`,
 * `KUBECONFIG`, `CALICO_API_GROUP`, and netledger's `NETLEDGER_DATASTORE_PATH`. An empty variable is unset. Never throws.
 */
export function readEnvSettings(env: SettingsEnv): SettingsSource {
  return settingsFrom(ENV_NAMES, (name) => env[name]);
}
