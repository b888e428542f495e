import type { Datastore, IpamClient } from '@netledger/ipam-core';
import type { Logger } from '../../logger.js';
import type { ItemBackoff } from '../../manager/item-backoff.js';
import type { SlimPod } from '../../kube/slim-pod.js';
import type { IpamGcSettings } from '../gc-settings.js';
import type { GcState } from '../gc-state.js';
import type { TrackedAllocation } from '../tracked-allocation.js';
import type { ScanLookups } from '../scan-leaks.js';

/** Reads straight from the Kubernetes API, for the final re-validation (never from a cache). */
export interface LiveLookups {
  /** The pod, or undefined on NotFound; throws on any other failure. */
  pod(namespace: string, name: string): Promise<SlimPod | undefined>;
  /** Whether the node exists; throws on a failure other than NotFound. */
  nodeExists(name: string): Promise<boolean>;
}

/** What a GC pass writes through, and where it looks things up. */
export interface GcPorts {
  readonly ipam: Pick<
    IpamClient,
    'releaseIps' | 'releaseBlockAffinity' | 'releaseHostAffinities' | 'garbageCollectColdIps'
  > & { readonly nodes?: Pick<IpamClient['nodes'], 'delete'> };
  /** For orphan handle deletion (a CAS delete at the observed revision). */
  readonly datastore: Pick<Datastore, 'delete'>;
  readonly cache: ScanLookups;
  readonly live: LiveLookups;
  readonly logger: Logger;
  /** Checked before every write: a replica that lost its lease writes nothing more. */
  readonly isLeader: () => boolean;
  /** Delete the Calico Node resource of a cleaned-up node (stores where it is separate). */
  readonly deleteCalicoNodes?: boolean;
}

/** Observers of a pass (metrics). */
interface GcPassObserver {
  reclaimed?(t: TrackedAllocation, pool: string): void;
  nodeCleaned?(node: string): void;
  error?(operation: GcOperation): void;
}

/** The kinds of write a pass makes (the `operation` label of its error counter). */
export type GcOperation =
  | 'release-leaks'
  | 'revalidate'
  | 'cold-ip-gc'
  | 'release-empty-block'
  | 'release-node'
  | 'delete-handle';

/** Everything one pass works on. */
export interface GcPassContext {
  readonly state: GcState;
  readonly settings: IpamGcSettings;
  readonly backoff: ItemBackoff;
  readonly ports: GcPorts;
  readonly nowMs: number;
  readonly observer?: GcPassObserver;
}
