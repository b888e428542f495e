export type {
  DatastoreConfig,
  DatastoreType,
  EtcdDatastoreConfig,
  EtcdTransport,
  FileDatastoreConfig,
  K8sDatastoreConfig,
} from './datastore-config.js';
export { DatastoreConfigError, isDatastoreConfigError } from './datastore-config-error.js';
export type { DatastoreConfigErrorCode } from './datastore-config-error.js';
export type { SettingKey, Settings, SettingsSource } from './settings-source.js';
export { readEnvSettings } from './read-env-settings.js';
export type { SettingsEnv } from './read-env-settings.js';
export { readNetConfSettings } from './read-net-conf-settings.js';
export type { NetConfObjects } from './read-net-conf-settings.js';
export { readCalicoApiConfigSettings } from './read-calico-api-config-settings.js';
export { resolveDatastoreConfig } from './resolve-datastore-config.js';
export { createDatastoreOpener } from './create-datastore-opener.js';
export { daemonOpenerOptions, processUser } from './daemon-opener-options.js';
export type { DatastoreOpener } from './create-datastore-opener.js';
export type {
  DatastoreOpenerOptions,
  DatastoreUser,
  OpenEtcdGrpc,
  OpenOptions,
} from './store-opener.js';
