/** Lifecycle of an affinity: absent -> pending -> confirmed -> pendingDeletion -> absent. */
export type BlockAffinityState = 'pending' | 'confirmed' | 'pendingDeletion';

/** `host` for a node's blocks, `virtual` for LoadBalancer blocks. */
export type AffinityType = 'host' | 'virtual';

/** The value stored under an affinity key (Calico's `model.BlockAffinity`). */
export interface BlockAffinity {
  /** Calico treats an empty stored state as confirmed; the codec reads it as `confirmed`. */
  readonly state: BlockAffinityState;
  readonly deleted: boolean;
}
