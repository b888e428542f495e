import { IpamError } from '@netledger/ipam-core';
import type { CalicoApiGroup } from './calico-api-group.js';
import { CALICO_API_GROUPS, parseCalicoApiGroup } from './calico-api-group.js';

/** How to reach the API server, and how hard to use it. */
export interface K8sDatastoreOptions {
  /** Path of a kubeconfig file. Without it, the in-cluster service-account config is used. */
  readonly kubeconfig?: string;
  /** A kubeconfig context other than the current one. */
  readonly context?: string;
  /**
   * Use the pod's service account (`KUBERNETES_SERVICE_HOST`/`_PORT`, the mounted token and CA).
   * Default: true exactly when no `kubeconfig` is given; true together with a kubeconfig is refused.
   */
  readonly inCluster?: boolean;
  /** Sustained client-side requests per second (default {@link K8S_DEFAULTS}.qps). */
  readonly qps?: number;
  /** Requests that may be sent at once before `qps` applies (default {@link K8S_DEFAULTS}.burst). */
  readonly burst?: number;
  /** How long one request may wait for its answer, in ms (not watches; default 30 s). */
  readonly requestTimeoutMs?: number;
  /**
   * Connections to the API server at once (default: as many as requests in flight). A one-shot
   * process such as the CNI plugin sets 1: its few concurrent reads then share one keep-alive
   * connection instead of paying a TLS handshake each.
   */
  readonly maxSockets?: number;
  /**
   * Times a request is sent again after a 429 (any verb), or a read after a 5xx or a cut
   * connection (default {@link K8S_DEFAULTS}.maxRetries, as client-go; 0: never).
   */
  readonly maxRetries?: number;
  /** Total wait between one request's attempts, in ms (default {@link K8S_DEFAULTS}.maxRetryWaitMs). */
  readonly maxRetryWaitMs?: number;
  /**
   * The Calico API group to keep IPAM in, as Calico's `CALICO_API_GROUP` (`calicoAPIGroup` in its
   * API config) names it, in any case: `crd.projectcalico.org/v1` or `projectcalico.org/v3`.
   * Default: the one the API server has, found before the first request as Calico finds it
   * (projectcalico.org/v3 exactly when it is served and crd.projectcalico.org is not).
   */
  readonly calicoApiGroup?: string;
}

/**
 * Defaults. 50/100 are the kubelet's client defaults since Kubernetes 1.27, when API Priority and
 * Fairness took over protecting the server: a client-side limit is only a guard against a runaway
 * loop. Calico's 5/100 lets a cold `ipam check` or GC over thousands of nodes crawl at 5 requests a
 * second; an assign costs a constant handful of requests, so the burst covers any CNI ADD.
 */
export const K8S_DEFAULTS = {
  qps: 50,
  burst: 100,
  requestTimeoutMs: 30_000,
  maxRetries: 10,
  maxRetryWaitMs: 10_000,
} as const;

/** The options with defaults applied; `InvalidArgument` for a contradiction or a bad number. */
export interface ResolvedK8sOptions {
  readonly kubeconfig?: string;
  readonly context?: string;
  readonly qps: number;
  readonly burst: number;
  readonly requestTimeoutMs: number;
  readonly maxSockets?: number;
  readonly maxRetries: number;
  readonly maxRetryWaitMs: number;
  readonly calicoApiGroup?: CalicoApiGroup;
}

function apiGroup(v: string | undefined): CalicoApiGroup | undefined {
  if (v === undefined) return undefined;
  const group = parseCalicoApiGroup(v);
  if (group === undefined) {
    throw new IpamError(
      'InvalidArgument',
      `calicoApiGroup must be ${CALICO_API_GROUPS.join(' or ')}, got ${JSON.stringify(v)}`,
    );
  }
  return group;
}

function positive(
  name: string,
  v: number | undefined,
  rule: { readonly dflt: number; readonly integer: boolean },
): number {
  const { dflt, integer } = rule;
  if (v === undefined) return dflt;
  if (!Number.isFinite(v) || v <= 0 || (integer && !Number.isInteger(v))) {
    throw new IpamError(
      'InvalidArgument',
      `${name} must be a positive ${integer ? 'integer' : 'number'}, got ${String(v)}`,
    );
  }
  return v;
}

function nonNegativeInteger(name: string, v: number | undefined, dflt: number): number {
  if (v === undefined) return dflt;
  if (!Number.isInteger(v) || v < 0) {
    throw new IpamError('InvalidArgument', `${name} must be a whole number >= 0, got ${String(v)}`);
  }
  return v;
}

/** Checks the options and applies {@link K8S_DEFAULTS}. */
export function resolveK8sOptions(o: K8sDatastoreOptions): ResolvedK8sOptions {
  if (o.inCluster === true && o.kubeconfig !== undefined) {
    throw new IpamError('InvalidArgument', 'give either kubeconfig or inCluster: true, not both');
  }
  if (o.inCluster === false && o.kubeconfig === undefined) {
    throw new IpamError('InvalidArgument', 'inCluster is false but no kubeconfig is given');
  }
  if (o.kubeconfig === '') throw new IpamError('InvalidArgument', 'kubeconfig is an empty path');
  const calicoApiGroup = apiGroup(o.calicoApiGroup);
  return {
    ...(o.kubeconfig !== undefined && { kubeconfig: o.kubeconfig }),
    ...(o.context !== undefined && { context: o.context }),
    qps: positive('qps', o.qps, { dflt: K8S_DEFAULTS.qps, integer: false }),
    burst: positive('burst', o.burst, { dflt: K8S_DEFAULTS.burst, integer: true }),
    requestTimeoutMs: positive('requestTimeoutMs', o.requestTimeoutMs, {
      dflt: K8S_DEFAULTS.requestTimeoutMs,
      integer: true,
    }),
    maxRetries: nonNegativeInteger('maxRetries', o.maxRetries, K8S_DEFAULTS.maxRetries),
    maxRetryWaitMs: nonNegativeInteger(
      'maxRetryWaitMs',
      o.maxRetryWaitMs,
      K8S_DEFAULTS.maxRetryWaitMs,
    ),
    ...(o.maxSockets !== undefined && {
      maxSockets: positive('maxSockets', o.maxSockets, { dflt: 1, integer: true }),
    }),
    ...(calicoApiGroup !== undefined && { calicoApiGroup }),
  };
}
