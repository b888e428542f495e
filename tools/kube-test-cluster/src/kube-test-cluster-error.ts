/** What went wrong, for callers that match on it (never on the message). */
export type KubeTestClusterErrorCode =
  /** Bad command line, or a --dir that cannot hold a cluster. */
  | 'USAGE'
  /** `down` on a directory that `up` did not make: it is left alone. */
  | 'NOT_A_CLUSTER'
  /** Not root, or a program or file the cluster needs is missing (the message says which). */
  | 'MISSING_PREREQUISITE'
  /** `--cni netledger` without the project's images and manifests. */
  | 'NETLEDGER_INPUTS_MISSING'
  /** A component did not start or the node did not become Ready (with the logs' tails). */
  | 'START_FAILED'
  /** `down` could not undo everything (the message lists what is left). */
  | 'TEARDOWN_INCOMPLETE';

/** The one error class of kube-test-cluster; the message says what to do about it. */
export class KubeTestClusterError extends Error {
  override readonly name = 'KubeTestClusterError';
  constructor(
    readonly code: KubeTestClusterErrorCode,
    message: string,
  ) {
    super(message);
  }
}
