/** What the example network config is made from (`netledger-ipam install --conf-dir`). */
export interface ExampleNetwork {
  readonly network: string;
  readonly bridge: string;
  /** The pool's CIDR; netledgerctl creates the pool (`ippool create --cidr`). */
  readonly pool: string;
  readonly datastorePath?: string;
  readonly lockFile?: string;
  readonly agentSocket?: string;
}

/**
 * An example conflist: Debian's `bridge` with the gateway on the bridge, masquerading, and
 * netledger-ipam in gateway mode on one pool (the segment's gateway is the pool's first host
 * address, reserved so no container gets it), with a default route through it: what a podman or
 * containerd network needs.
 */
export function exampleConflist(n: ExampleNetwork): Record<string, unknown> {
  return {
    cniVersion: '1.0.0',
    name: n.network,
    plugins: [
      {
        type: 'bridge',
        bridge: n.bridge,
        isGateway: true,
        ipMasq: true,
        hairpinMode: true,
        ipam: {
          type: 'netledger-ipam',
          mode: 'gateway',
          ipv4_pools: [n.pool],
          routes: [{ dst: '0.0.0.0/0' }],
          ...(n.datastorePath !== undefined && { datastore_path: n.datastorePath }),
          ...(n.lockFile !== undefined && { ipam_lock_file: n.lockFile }),
          ...(n.agentSocket !== undefined && { agent_socket: n.agentSocket }),
        },
      },
    ],
  };
}
