import type { DatastoreConfig } from '@netledger/datastore-config';
import type { Clock, Datastore, IpamClient } from '@netledger/ipam-core';
import type { AcquireHostLock } from './flock-host-lock.js';
import type { KubeApi } from './k8s/kube-reads.js';
import type { Logger } from './logger.js';
import type { IpamConf } from './net-conf.js';
import type { NodenameSources } from './nodename.js';

/** calico-ipam's budget for one assign or release, counted from when the host lock is held. */
export const DEFAULT_TIMEOUT_MS = 90_000;
/** How long ADD, DEL and GC wait for the host lock before "try again later". */
export const DEFAULT_LOCK_TIMEOUT_MS = 90_000;

/** What the plugin needs from its host; the app wires real ones, tests in-memory ones. */
export interface PluginDeps extends NodenameSources {
  /**
   * The text of `nodename_file`, `undefined` when there is none. A rejection (a file that exists
   * but cannot be read) is logged as an error and taken as no node name, as calico-ipam does.
   */
  readonly readFile: (path: string) => Promise<string | undefined>;
  /**
   * Opens the configured datastore (the app's `@netledger/datastore-config` opener, which imports
   * the adapter lazily). A `DatastoreConfigError` it throws is reported with the spec's code.
   */
  readonly openDatastore: (conf: DatastoreConfig, log: Logger) => Promise<Datastore>;
  /**
   * Loads the adapter's code before the host lock is taken, so compiling it (the etcd client is
   * large) does not lengthen the section other invocations wait for. Optional.
   */
  readonly preloadDatastore?: (conf: DatastoreConfig) => Promise<void>;
  /**
   * The Kubernetes API on an opened `kubernetes` datastore's connection, for a Kubernetes pod's
   * annotations, namespace and KubeVirt VM (k8s/); without it, pods are not read.
   */
  readonly kubeApi?: (datastore: Datastore) => Promise<KubeApi | undefined>;
  /**
   * The IPAM client over the opened datastore (default: a new `createIpamClient` per invocation).
   * A long-lived process (the node agent) passes one client for all its requests, so its block
   * hints (the blocks it last wrote, its CAS bases) outlive a request.
   */
  readonly ipamClient?: (datastore: Datastore) => IpamClient;
  /** The logger for this invocation's config (default: silent). */
  readonly createLogger?: (ipam: IpamConf) => Logger;
  readonly clock?: Clock;
  /**
   * Takes the host lock for ADD, DEL and GC (`createFlockHostLock`'s, over the static client's lock
   * helper; undefined: the request goes on unlocked).
   */
  readonly acquireLock: AcquireHostLock;
  readonly timeoutMs?: number;
  readonly lockTimeoutMs?: number;
  /** Printed (with the supported versions) on stderr when CNI_COMMAND is unset. */
  readonly about?: string;
}
