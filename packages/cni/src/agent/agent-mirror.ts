import type { ListOptions } from '@netledger/ipam-core';

/**
 * What the agent mirrors (watch-fed, served from memory): what every assignment reads, pools,
 * reservations, the IPAM config and the Nodes (a pool's nodeSelector reads the node's labels), and
 * this node's own block affinities, not the cluster's. Blocks are not mirrored: the client writes
 * over the version it last wrote (its block hints), which the compare-and-swap checks.
 */
export function agentMirrorLists(nodename: string): ListOptions[] {
  return [
    { kind: 'IPPool' },
    { kind: 'IPReservation' },
    { kind: 'IPAMConfig' },
    { kind: 'Node' },
    { kind: 'BlockAffinity', host: nodename },
  ];
}
