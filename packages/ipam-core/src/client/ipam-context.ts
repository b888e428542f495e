import type { Datastore } from '../datastore/datastore.js';
import type { AffinityType } from '../model/block-affinity.js';
import type { Clock, Random } from './clock.js';
import type { IpamReporter } from './ipam-report.js';

/**
 * What every client operation needs: the store, time and randomness, and where to report a
 * best-effort step that failed (none: nothing is reported).
 */
export interface IpamContext {
  readonly ds: Datastore;
  readonly clock: Clock;
  readonly random: Random;
  readonly report?: IpamReporter;
}

/** Who a block is affine to (Calico's `AffinityConfig`). */
export interface AffinityConfig {
  readonly affinityType: AffinityType;
  readonly host: string;
}
