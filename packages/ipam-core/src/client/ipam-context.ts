import type { Datastore } from '../datastore/datastore.js';
import type { AffinityType } from '../model/block-affinity.js';
import type { Clock, Random } from './clock.js';

/** What every client operation needs: the store, time and randomness. */
export interface IpamContext {
  readonly ds: Datastore;
  readonly clock: Clock;
  readonly random: Random;
}

/** Who a block is affine to (Calico's `AffinityConfig`). */
export interface AffinityConfig {
  readonly affinityType: AffinityType;
  readonly host: string;
}
