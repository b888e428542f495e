import type { DatastoreConfig } from '@netledger/datastore-config';

/** A write at which a worker SIGKILLs itself, just before or just after the store applies it. */
export interface CrashPoint {
  readonly kind: 'IPAMBlock' | 'IPAMHandle' | 'BlockAffinity';
  readonly op: 'create' | 'update' | 'delete';
  /** Which such write (1 = the first). */
  readonly nth: number;
  readonly when: 'before' | 'after';
  /** Count only writes made by this kind of call (an assign, a release, or the final drain). */
  readonly during: 'assign' | 'release' | 'drain';
}

/** What one host process does: its name, its stores, how many operations and how they are picked. */
export interface WorkerPlan {
  readonly host: string;
  /** CNI network name; handles are `<network>.<containerID>`, as the plugin makes them. */
  readonly network: string;
  /** Namespace recorded on every allocation (and of the pods on the Kubernetes store). */
  readonly namespace: string;
  /** Operations to run; container IDs are `<host>-<n>` for n from `firstOp`. */
  readonly ops: number;
  readonly firstOp: number;
  readonly seed: number;
  /** Every `cniEvery`-th operation goes through the plugin executable (0: never). */
  readonly cniEvery: number;
  /** The chance that an operation releases a held handle rather than assigns (default 0.45). */
  readonly releaseChance?: number;
  /** The library's store. */
  readonly store: DatastoreConfig;
  /** The plugin's netconf (its store settings and `ipam` section). */
  readonly netconf: Readonly<Record<string, unknown>>;
  /** The plugin executable. */
  readonly plugin: string;
  /** etcd timeouts for the library (the suite's failover test shortens them). */
  readonly etcd?: { readonly dialTimeoutMs: number; readonly requestTimeoutMs: number };
  /** Pause after a failed call before the next one, as a runtime backs off (default 0). */
  readonly backoffMs?: number;
  /** Handles this host already holds (a restarted host carries on with them). */
  readonly held?: readonly HeldHandle[];
  /** Releases to make first: what a runtime retries after a crash (a DEL, or cleanup of an ADD). */
  readonly redo?: readonly HeldHandle[];
  /** SIGKILL itself at this write. */
  readonly crash?: CrashPoint;
  /** After the operations, release everything held and then the host's block affinities. */
  readonly drainAtEnd?: boolean;
}

/** A handle a host holds and the path it took (its release takes the same one). */
export interface HeldHandle {
  readonly containerId: string;
  readonly via: 'cni' | 'lib';
}

/** One line a worker prints on stdout as each call ends (JSON). */
export type WorkerEvent =
  | {
      readonly ev: 'assigned';
      readonly host: string;
      readonly containerId: string;
      readonly handle: string;
      readonly via: 'cni' | 'lib';
      readonly ips: string[];
      readonly t: number;
      readonly ms: number;
    }
  | {
      readonly ev: 'released';
      readonly host: string;
      readonly containerId: string;
      readonly handle: string;
      readonly via: 'cni' | 'lib';
      readonly t: number;
      readonly ms: number;
    }
  | {
      readonly ev: 'failed';
      readonly host: string;
      readonly action: 'assign' | 'release' | 'drain';
      readonly containerId: string;
      readonly handle: string;
      readonly via: 'cni' | 'lib';
      readonly code: string;
      readonly message: string;
      readonly t: number;
      readonly ms: number;
    }
  | {
      /** Printed before each call: the call in flight when a process is killed is the last one. */
      readonly ev: 'started';
      readonly host: string;
      readonly action: 'assign' | 'release' | 'drain';
      readonly containerId: string;
      readonly via: 'cni' | 'lib';
      readonly t: number;
    }
  | { readonly ev: 'drained'; readonly host: string; readonly t: number }
  | { readonly ev: 'done'; readonly host: string; readonly t: number };
