import type { ListOptions } from '@netledger/ipam-core';

/**
 * What the agent mirrors (watch-fed, served from memory): what every assignment reads, pools,
 * reservations, the IPAM config and the Nodes (a pool's nodeSelector reads the node's labels),
 * this node's own block affinities, not the cluster's, and the blocks: an assignment or release
 * writes over the version the mirror holds (its own last write, or the watch's), which the
 * compare-and-swap checks, so a steady-state ADD or DEL reads no block from the store. The
 * cluster's blocks, as Calico's Felix watches them for routes: keys carry no host, so a store
 * cannot send only this node's. Handles are not mirrored: there is one per container, cluster
 * wide, and an ADD or DEL reads its own.
 */
export function agentMirrorLists(nodename: string): ListOptions[] {
  return [
    { kind: 'IPPool' },
    { kind: 'IPReservation' },
    { kind: 'IPAMConfig' },
    { kind: 'Node' },
    { kind: 'BlockAffinity', host: nodename },
    { kind: 'IPAMBlock' },
  ];
}
