export { CniError, CniErrorCode, toCniError } from './cni-error.js';
export type { CniErrorCodeValue } from './cni-error.js';
export {
  CURRENT_VERSION,
  SUPPORTED_VERSIONS,
  compareVersions,
  isSupportedVersion,
  versionInfo,
} from './spec-versions.js';
export type { SpecVersion } from './spec-versions.js';
export { parseCniRequest } from './cni-request.js';
export type { CniCommand, CniRequest, Env } from './cni-request.js';
export { parseCniArgs } from './cni-args.js';
export type { CniArgs } from './cni-args.js';
export {
  DEFAULT_AGENT_SOCKET,
  DEFAULT_LOCK_FILE,
  DEFAULT_NODENAME_FILE,
  decodeConfigHeader,
  parseNetConf,
} from './net-conf.js';
export type { Attachment, IpamConf, LogFileConf, LogLevel, NetConf } from './net-conf.js';
export { openLogFile } from './log-file.js';
export { formatError, formatResult, printJson, routeFor } from './cni-result.js';
export type { CniErrorJson, CniResultJson, IpamResult, ResultIp } from './cni-result.js';
export { allocationAttrs, handleIdFor, workloadIdFor } from './workload-identity.js';
export { resolveNodename } from './nodename.js';
export type { NodenameSources } from './nodename.js';
export { createLogger, silentLogger } from './logger.js';
export type { Logger } from './logger.js';
export { createFlockHostLock } from './flock-host-lock.js';
export type {
  AcquireHostLock,
  FlockHostLock,
  HostLock,
  HostLockOptions,
} from './flock-host-lock.js';
export { cmdAdd } from './cmd-add.js';
export { cmdDel } from './cmd-del.js';
export { cmdCheck } from './cmd-check.js';
export { cmdGc } from './cmd-gc.js';
export { cmdStatus } from './cmd-status.js';
export type { CommandContext } from './command-context.js';
export { DEFAULT_LOCK_TIMEOUT_MS, DEFAULT_TIMEOUT_MS } from './plugin-deps.js';
export type { PluginDeps } from './plugin-deps.js';
export { runCniPlugin } from './run-plugin.js';
export type { PluginInvocation, PluginOutput } from './run-plugin.js';
export { cmdAddK8s } from './k8s/k8s-add.js';
export { cmdCheckK8s } from './k8s/k8s-check.js';
export { cmdDelK8s } from './k8s/k8s-del.js';
export { ANNOTATIONS, parseWorkloadAnnotations } from './k8s/workload-annotations.js';
export type { WorkloadIpamRequest } from './k8s/workload-annotations.js';
export { parseFeatureControl } from './k8s/feature-control.js';
export type { FeatureControl } from './k8s/feature-control.js';
export { kubePaths, metaOf } from './k8s/kube-reads.js';
export type { KubeApi, KubeMeta, OwnerReference } from './k8s/kube-reads.js';
export { MIGRATION_JOB_LABEL, VM_ATTRS, vmHandleId, vmiOwnerOf } from './k8s/kubevirt.js';
export type { VmiInfo } from './k8s/kubevirt.js';
export type { WorkloadOverrides } from './k8s/workload-overrides.js';
