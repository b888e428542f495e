// The controller framework: a small Controller interface and a manager that shares informers,
// the store, one leader election, one metrics registry and the health endpoints.
export type {
  Controller,
  ControllerContext,
  ControllerStatus,
  Leadership,
  SharedInformers,
} from './controller.js';
export { startControllerManager } from './controller-manager.js';
export type {
  ControllerManager,
  ControllerManagerOptions,
  LeaderElectionOptions,
} from './controller-manager.js';
export { serveHttpEndpoints } from './http-server.js';
export type { HttpEndpoints, HttpEndpointsServer } from './http-server.js';
export { startLeaseElector } from './lease-elector.js';
export type { LeaseElector, LeaseElectorOptions } from './lease-elector.js';
export { createSharedInformers, LIST_PAGE_SIZE } from './shared-informers.js';
export { startSlimInformer } from './slim-informer.js';
export type { ListPage, Slim, SlimInformer, SlimInformerOptions } from './slim-informer.js';
export {
  KubeConfigError,
  createKubeApis,
  isNotFound,
  kubeStatus,
  loadKubeConfig,
} from './kube-client.js';
export type { KubeApis } from './kube-client.js';
export { startStoreReflector } from './store-reflector.js';
export type { StoreReflector, StoreReflectorOptions } from './store-reflector.js';

// The IPAM GC controller.
export { createIpamGcController } from './ipam-gc-controller.js';
export type { IpamGcController, IpamGcControllerOptions } from './ipam-gc-controller.js';
export { createIpamGcMetrics } from './ipam-gc-metrics.js';
export type { IpamGcMetrics } from './ipam-gc-metrics.js';

// The LoadBalancer controller.
export { createLoadBalancerController } from './load-balancer-controller.js';
export type {
  LoadBalancerController,
  LoadBalancerControllerOptions,
} from './load-balancer-controller.js';
export { loadBalancerSettings } from './lb-settings.js';
export type { LoadBalancerMode, LoadBalancerSettings } from './lb-settings.js';
export { createLbKubeWriter, startServiceInformer } from './lb-kube.js';
export type { LbKubeWriter, ServiceEvent } from './lb-kube.js';
export { LOAD_BALANCER_HOST, LbRetryLater, reconcileHandle } from './lb-reconcile.js';
export type { LbPorts, LbReconcileInput, LbReconcileOutcome } from './lb-reconcile.js';
export { LB_STORE_KINDS, LbState, lbPoolOf } from './lb-state.js';
export type { LbAllocation, LbPoolInfo, LbStateDelta } from './lb-state.js';
export { ServiceIndex, candidateHandlesOf, ownerHandleOf } from './lb-index.js';
export {
  RELEASE_REASON_TEXT,
  admitMembers,
  desireOf,
  ingressIpsFor,
  planAddresses,
} from './lb-plan.js';
export type {
  AddressDesire,
  AddressPlan,
  Member,
  PlannedAssignment,
  Refusal,
  ReleaseReason,
} from './lb-plan.js';
export { familyOf, parseLoadBalancerRequest } from './lb-request.js';
export type { IpFamily, LbPool, LoadBalancerRequest, ParsedRequest } from './lb-request.js';
export {
  LOAD_BALANCER_HANDLE_PREFIX,
  loadBalancerHandle,
  sharedAddressHandle,
} from './lb-handle.js';
export { computeLbPoolMetrics, createLbMetrics } from './lb-metrics.js';
export type { LbMetrics, LbPoolMetrics, LbServiceState } from './lb-metrics.js';
export { computePoolFigures } from './pool-figures.js';
export type { PoolFigures } from './pool-figures.js';

// Pure decision logic.
export {
  DEFAULT_LEAK_GRACE_PERIOD_MS,
  fullScanIntervalFor,
  ipamGcSettings,
  validateIpamGcSettings,
} from './gc-settings.js';
export type { IpamGcSettings } from './gc-settings.js';
export { GcState, NO_POOL } from './gc-state.js';
export type { BlockInfo, HandleInfo, PoolInfo, TrackedAllocation } from './gc-state.js';
export { GC_STORE_KINDS, applyStoreChange, buildGcState } from './apply-store-change.js';
export type { GcStoreKind, StoreChange } from './apply-store-change.js';
export { describeState, findStateProblems } from './state-consistency.js';
export { judge, scanNode } from './scan-leaks.js';
export type { AllocationVerdict, NodeScan, ScanLookups, ScanOptions } from './scan-leaks.js';
export { planReleases } from './plan-releases.js';
export type { BlockRelease, PlanReleasesOptions, ReleasePlan } from './plan-releases.js';
export {
  MIN_RECLAIM_AGE_MS,
  isPoolFull,
  planColdBlocks,
  planEmptyBlockReleases,
  planOrphanHandles,
} from './plan-blocks.js';
export type {
  EmptyBlockPlan,
  EmptyBlockReason,
  EmptyBlockRelease,
  OrphanHandle,
  OrphanHandlePlan,
  PlanEmptyBlocksOptions,
} from './plan-blocks.js';
export { runGcPass } from './gc-pass.js';
export type {
  GcOperation,
  GcPassContext,
  GcPassObserver,
  GcPassReport,
  GcPorts,
  LiveLookups,
} from './gc-pass.js';
export { NO_AFFINITY, UNKNOWN_NODE, computeIpamMetrics } from './ipam-metrics-model.js';
export type { IpamMetricsSnapshot, PoolMetrics, PoolNodeValues } from './ipam-metrics-model.js';
export { createItemBackoff } from './item-backoff.js';
export type { ItemBackoff } from './item-backoff.js';
export { NOT_KUBERNETES, kubernetesNodeOf, resolveKubernetesNode } from './node-mapping.js';
export type { KubernetesNodeRef } from './node-mapping.js';
export { podFactsOf, podLookupOf, podReportsAddress, slimNode, slimPod } from './slim-pod.js';
export type { SlimMeta, SlimNode, SlimPod } from './slim-pod.js';

// Configuration, durations, logging.
export {
  DEFAULT_METRICS_PORT,
  RunConfigError,
  USAGE,
  parseListen,
  parseRunArgs,
  readKubeControllersConfiguration,
  resolveRunConfig,
} from './run-config.js';
export type { KubeControllersConfigurationSpec, ParsedArgs, RunConfig } from './run-config.js';
export { DurationSyntaxError, formatDuration, parseDuration } from './duration.js';
export { createJsonLogger, errorText, isLogLevel, silentLogger, withLogFields } from './logger.js';
export type { LogFields, LogLevel, Logger } from './logger.js';
