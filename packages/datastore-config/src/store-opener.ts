import type { EtcdGatewayDatastoreOptions } from '@netledger/datastore-etcd/gateway';
import type { FileDatastoreOptions, RepairMode } from '@netledger/datastore-file';
import type { K8sDatastoreOptions } from '@netledger/datastore-k8s';
import type { Datastore } from '@netledger/ipam-core';
import type { DatastoreConfig, EtcdTransport } from './datastore-config.js';

/** Opens etcd over gRPC with the options the gateway would get. */
export type OpenEtcdGrpc = (options: EtcdGatewayDatastoreOptions) => Datastore;

/** Whose default file store: the inputs of datastore-file's `defaultDatastorePath`. */
export interface DatastoreUser {
  readonly uid: number | undefined;
  readonly home: string;
  readonly xdgStateHome?: string | undefined;
}

/** What an app decides about opening stores: its defaults and where its gRPC code comes from. */
export interface DatastoreOpenerOptions {
  /**
   * Whose default file store, asked only when a file config names no path (finding a home
   * directory without `HOME` reads the user database, which a one-shot process should not pay for
   * when the path is configured).
   */
  readonly user: () => DatastoreUser;
  /** File store options (history length, blocking I/O, lock timeout, watch interval). */
  readonly file?: Omit<FileDatastoreOptions, 'path' | 'onWarning'>;
  /**
   * Told of each of a file store's cleanups that failed without failing what was asked (the lock
   * not released, a handle not closed, a temp file left), in an open store or a repair, as one
   * line of text (datastore-file's `formatFileWarning`). Default: nothing is told.
   */
  readonly onFileWarning?: (line: string) => void;
  readonly etcd: {
    /** The transport for a config that names none. */
    readonly transport: EtcdTransport;
    /**
     * Loads the gRPC transport when a config uses it: `loadEtcdGrpc` from
     * `@netledger/datastore-config/etcd-grpc`, or an app's own chunk. Passed in, so a program
     * that only uses the gateway carries no gRPC code.
     */
    readonly loadGrpc: () => Promise<OpenEtcdGrpc>;
    readonly dialTimeoutMs?: number;
    readonly requestTimeoutMs?: number;
  };
  /** The Kubernetes client's limits and timeout (datastore-k8s's defaults when absent). */
  readonly kubernetes?: Pick<
    K8sDatastoreOptions,
    'qps' | 'burst' | 'requestTimeoutMs' | 'maxSockets'
  >;
}

/** Options of one `open`. */
export interface OpenOptions {
  /**
   * Whether a missing file store may be created (default true). With false, a path that holds
   * no store fails `NoDatastore` and nothing is created.
   */
  readonly mayCreate?: boolean;
  /**
   * Open for reading only (default false; the file store: it creates, sweeps and locks nothing, so
   * a store in a read-only directory opens, and every write fails). Other stores ignore it.
   */
  readonly readOnly?: boolean;
}

/** Options of one `repair`. */
export interface RepairOptions {
  /**
   * `auto` (default): the previous generation when it checks, else salvage; `previous`: only the
   * previous generation; `salvage`: every record of the damaged file that checks.
   */
  readonly mode?: RepairMode;
  /** Report what would be done, change nothing (default false). */
  readonly dryRun?: boolean;
}

/** How one store type is loaded and opened. */
export interface StoreOpener<C extends DatastoreConfig> {
  /** Imports (and compiles) what opening `config` needs, without opening anything. */
  load(config: C, options: DatastoreOpenerOptions): Promise<unknown>;
  open(config: C, options: DatastoreOpenerOptions, call: OpenOptions): Promise<Datastore>;
}
