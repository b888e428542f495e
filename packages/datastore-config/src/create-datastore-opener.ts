import type { RepairReport } from '@netledger/datastore-file';
import type { KubeObjectReader } from '@netledger/datastore-k8s';
import type { Datastore } from '@netledger/ipam-core';
import type { DatastoreConfig, DatastoreType } from './datastore-config.js';
import { fileStorePath } from './file-store-path.js';
import { etcdOpener } from './open-etcd-datastore.js';
import { fileOpener } from './open-file-datastore.js';
import { k8sObjectReaderOf, k8sOpener } from './open-k8s-datastore.js';
import { repairDatastore } from './repair-datastore.js';
import type {
  DatastoreOpenerOptions,
  OpenOptions,
  RepairOptions,
  StoreOpener,
} from './store-opener.js';

/** One opener per store type: a new type gets a row here and a module of its own. */
const OPENERS: {
  readonly [T in DatastoreType]: StoreOpener<Extract<DatastoreConfig, { type: T }>>;
} = { file: fileOpener, etcdv3: etcdOpener, kubernetes: k8sOpener };

// The table is keyed by the config's own type, so the row takes that config.
const openerFor = <C extends DatastoreConfig>(config: C): StoreOpener<C> =>
  OPENERS[config.type] as unknown as StoreOpener<C>;

/** Opens configured stores with one app's options. */
export interface DatastoreOpener {
  /**
   * Opens the store `config` names; its package is imported on first use. Throws
   * `DatastoreConfigError`: `InvalidValue` for a bad etcd endpoint or TLS file, `NoDatastore` for a
   * missing file store when `mayCreate` is false; a store's own errors (`IpamError`) pass
   * through.
   */
  readonly open: (config: DatastoreConfig, options?: OpenOptions) => Promise<Datastore>;
  /**
   * Imports and compiles what opening `config` needs without opening it (the CNI plugin calls it
   * before taking its host lock, so the gRPC client is not compiled while others wait).
   */
  readonly preload: (config: DatastoreConfig) => Promise<void>;
  /**
   * The reader of Kubernetes API objects sharing `datastore`'s connection when it is a Kubernetes
   * store (undefined for any other), for what a command reads beside IPAM (Services, the
   * KubeControllersConfiguration).
   */
  readonly kubernetesReaderOf: (datastore: Datastore) => Promise<KubeObjectReader | undefined>;
  /**
   * Brings back the file store `config` names when it no longer opens (its previous generation,
   * or every record that checks; a missing file from its previous generation), at the path
   * `open` would use. Refuses, changing nothing: another store type (`DatastoreConfigError`
   * `Unsupported`), and, as `IpamError`s from datastore-file, a symbolic link, anything but a
   * regular file, a file that is not a store, a store whose lock another process holds.
   */
  readonly repair: (config: DatastoreConfig, options?: RepairOptions) => Promise<RepairReport>;
  /** The file store's path when a file config names none: the opener's user's default. */
  readonly defaultFilePath: () => Promise<string>;
}

/**
 * The opener of an app: the file store with `options.file` at the config's path or the user's
 * default one, etcd over the config's transport (else `options.etcd.transport`) with
 * `options.etcd`'s timeouts, the Kubernetes API through the config's kubeconfig (else in-cluster)
 * with `options.kubernetes`; repairs file stores only. Nothing is imported until a store is used.
 */
export function createDatastoreOpener(options: DatastoreOpenerOptions): DatastoreOpener {
  return {
    open: (config, call = {}) => openerFor(config).open(config, options, call),
    preload: async (config) => {
      await openerFor(config).load(config, options);
    },
    kubernetesReaderOf: k8sObjectReaderOf,
    repair: (config, call = {}) => repairDatastore(config, options, call),
    defaultFilePath: () => fileStorePath({ type: 'file' }, options),
  };
}
