import type { Datastore } from '../datastore/datastore.js';
import type { AffinityType } from '../model/block-affinity.js';
import type { BlockHints } from './block-hints.js';
import type { Clock, Random } from './clock.js';

/** What every client operation needs: the store, time and randomness. */
export interface IpamContext {
  readonly ds: Datastore;
  readonly clock: Clock;
  readonly random: Random;
  /**
   * The blocks this client last wrote, kept up to date by every block write here; autoAssign
   * uses them as CAS bases instead of reading an affine block. Absent: every block is read.
   */
  readonly blockHints?: BlockHints;
}

/** Who a block is affine to (Calico's `AffinityConfig`). */
export interface AffinityConfig {
  readonly affinityType: AffinityType;
  readonly host: string;
}
