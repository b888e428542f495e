// The controller framework: a small Controller interface and a manager that shares informers,
// the store, one leader election, one metrics registry and the health endpoints.
export type {
  Controller,
  ControllerContext,
  ControllerStatus,
  Leadership,
  SharedInformers,
} from './manager/controller.js';
export { startControllerManager } from './manager/controller-manager.js';
export type {
  ControllerManager,
  ControllerManagerOptions,
  LeaderElectionOptions,
} from './manager/controller-manager.js';
export { serveHttpEndpoints } from './manager/http-server.js';
export type { HttpEndpoints, HttpEndpointsServer } from './manager/http-server.js';
export { startLeaseElector } from './manager/lease-elector.js';
export type { LeaseElector, LeaseElectorOptions } from './manager/lease-elector.js';
export { createSharedInformers, LIST_PAGE_SIZE } from './kube/shared-informers.js';
export { startSlimInformer } from './kube/slim-informer.js';
export type { ListPage, Slim, SlimInformer, SlimInformerOptions } from './kube/slim-informer.js';
export {
  KubeConfigError,
  createKubeApis,
  isNotFound,
  kubeStatus,
  loadKubeConfig,
} from './kube/kube-client.js';
export type { KubeApis } from './kube/kube-client.js';
export { startStoreReflector } from './manager/store-reflector.js';
export type {
  StoreChange,
  StoreReflector,
  StoreReflectorOptions,
} from './manager/store-reflector.js';

// The IPAM GC controller.
export { createIpamGcController } from './gc/ipam-gc-controller.js';
export type { IpamGcController, IpamGcControllerOptions } from './gc/ipam-gc-controller.js';
export { createIpamGcMetrics } from './gc/ipam-gc-metrics.js';
export type { IpamGcMetrics } from './gc/ipam-gc-metrics.js';

// The LoadBalancer controller.
export { createLoadBalancerController } from './lb/load-balancer-controller.js';
export type {
  LoadBalancerController,
  LoadBalancerControllerOptions,
} from './lb/load-balancer-controller.js';
export { loadBalancerSettings } from './lb/lb-settings.js';
export type { LoadBalancerMode, LoadBalancerSettings } from './lb/lb-settings.js';
export { createLbKubeWriter, startServiceInformer } from './lb/lb-kube-writer.js';
export type { LbKubeWriter, ServiceEvent } from './lb/lb-kube-writer.js';
export { LOAD_BALANCER_HOST, LbRetryLater, reconcileHandle } from './lb/reconcile-handle.js';
export type { LbPorts, LbReconcileInput, LbReconcileOutcome } from './lb/reconcile-handle.js';
export { LB_STORE_KINDS, LbState, lbPoolOf } from './lb/lb-state.js';
export type { LbAllocation, LbPoolInfo, LbStateDelta } from './lb/lb-state.js';
export { ServiceIndex, candidateHandlesOf, ownerHandleOf } from './lb/service-index.js';
export {
  RELEASE_REASON_TEXT,
  admitMembers,
  desireOf,
  ingressIpsFor,
  planAddresses,
} from './lb/plan-addresses.js';
export type {
  AddressDesire,
  AddressPlan,
  Member,
  PlannedAssignment,
  Refusal,
  ReleaseReason,
} from './lb/plan-addresses.js';
export { familyOf, parseLoadBalancerRequest } from './lb/lb-request.js';
export type { IpFamily, LbPool, LoadBalancerRequest, ParsedRequest } from './lb/lb-request.js';
export {
  LOAD_BALANCER_HANDLE_PREFIX,
  loadBalancerHandle,
  sharedAddressHandle,
} from './lb/lb-handle.js';
export { computeLbPoolMetrics, createLbMetrics } from './lb/lb-metrics.js';
export type { LbMetrics, LbPoolMetrics, LbServiceState } from './lb/lb-metrics.js';
export { computePoolFigures } from './metrics/pool-figures.js';
export type { PoolFigures } from './metrics/pool-figures.js';

// Pure decision logic.
export {
  DEFAULT_LEAK_GRACE_PERIOD_MS,
  fullScanIntervalFor,
  ipamGcSettings,
  validateIpamGcSettings,
} from './gc/gc-settings.js';
export type { IpamGcSettings } from './gc/gc-settings.js';
export { GcState, NO_POOL } from './gc/gc-state.js';
export type { BlockInfo, HandleInfo, PoolInfo, TrackedAllocation } from './gc/gc-state.js';
export { GC_STORE_KINDS, applyStoreChange, buildGcState } from './gc/apply-store-change.js';
export type { GcStoreKind } from './gc/apply-store-change.js';
export { describeState, findStateProblems } from './gc/state-consistency.js';
export { judge, scanNode } from './gc/scan-leaks.js';
export type { AllocationVerdict, NodeScan, ScanLookups, ScanOptions } from './gc/scan-leaks.js';
export { planReleases } from './gc/plan-releases.js';
export type { BlockRelease, PlanReleasesOptions, ReleasePlan } from './gc/plan-releases.js';
export {
  MIN_RECLAIM_AGE_MS,
  isPoolFull,
  planColdBlocks,
  planEmptyBlockReleases,
  planOrphanHandles,
} from './gc/plan-blocks.js';
export type {
  EmptyBlockPlan,
  EmptyBlockReason,
  EmptyBlockRelease,
  OrphanHandle,
  OrphanHandlePlan,
  PlanEmptyBlocksOptions,
} from './gc/plan-blocks.js';
export { runGcPass } from './gc/pass/gc-pass.js';
export type { GcPassReport } from './gc/pass/gc-pass.js';
export type {
  GcOperation,
  GcPassContext,
  GcPassObserver,
  GcPorts,
  LiveLookups,
} from './gc/pass/gc-pass-context.js';
export { NO_AFFINITY, UNKNOWN_NODE, computeIpamMetrics } from './gc/ipam-metrics-model.js';
export type { IpamMetricsSnapshot, PoolMetrics, PoolNodeValues } from './gc/ipam-metrics-model.js';
export { createItemBackoff } from './manager/item-backoff.js';
export type { ItemBackoff } from './manager/item-backoff.js';
export { NOT_KUBERNETES, kubernetesNodeOf, resolveKubernetesNode } from './gc/node-mapping.js';
export type { KubernetesNodeRef } from './gc/node-mapping.js';
export { podFactsOf, podLookupOf, podReportsAddress, slimNode, slimPod } from './kube/slim-pod.js';
export type { SlimMeta, SlimNode, SlimPod } from './kube/slim-pod.js';

// Configuration, durations, logging.
export {
  DEFAULT_METRICS_PORT,
  RunConfigError,
  USAGE,
  parseListen,
  parseRunArgs,
  readKubeControllersConfiguration,
  resolveRunConfig,
} from './config/run-config.js';
export type {
  KubeControllersConfigurationSpec,
  ParsedArgs,
  RunConfig,
} from './config/run-config.js';
export { DurationSyntaxError, formatDuration, parseDuration } from './config/duration.js';
export { createJsonLogger, errorText, isLogLevel, silentLogger, withLogFields } from './logger.js';
export type { LogFields, LogLevel, Logger } from './logger.js';
