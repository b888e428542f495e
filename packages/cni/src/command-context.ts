import type { Datastore, IpamClient } from '@netledger/ipam-core';
import type { CniArgs } from './cni-args.js';
import type { CniRequest } from './cni-request.js';
import type { Logger } from './logger.js';
import type { KubeApi } from './k8s/kube-reads.js';
import type { WorkloadOverrides } from './k8s/workload-overrides.js';
import type { NetConf } from './net-conf.js';

/** Everything a command needs, built once per invocation by {@link runCniPlugin}. */
export interface CommandContext {
  readonly client: IpamClient;
  readonly datastore: Datastore;
  readonly conf: NetConf;
  readonly request: CniRequest;
  readonly cniArgs: CniArgs;
  readonly nodename: string;
  readonly nowMs: () => number;
  readonly log: Logger;
  /** ADD registers a missing node (the file store), once the request has been validated. */
  readonly registerNode: boolean;
  /** The Kubernetes API, for a Kubernetes pod on the `kubernetes` datastore (k8s/). */
  readonly kube?: KubeApi;
  /** Set by the Kubernetes layer for the ADD it runs (k8s/k8s-add.ts). */
  readonly workload?: WorkloadOverrides;
}
