export { CtlError, isCtlError } from './ctl-error.js';
export type { CtlErrorCode } from './ctl-error.js';
export { CTL_VERSION } from './version.js';

export { DEFAULT_CONFIG_FILES, selectDatastore } from './config/datastore-config.js';
export type {
  ConfigFile,
  CtlEnv,
  SelectDatastoreOptions,
  SelectedDatastore,
} from './config/datastore-config.js';

export {
  renderUtilization,
  showBorrowed,
  showConfiguration,
  showIp,
  showUtilization,
} from './commands/ipam-show.js';
export type { BorrowedIp } from './commands/ipam-show.js';
export { configureIpam } from './commands/ipam-configure.js';
export type { ConfigureOptions } from './commands/ipam-configure.js';
export { assignAddresses, releaseHandle } from './commands/ipam-assign.js';
export type { AssignCommandOptions } from './commands/ipam-assign.js';
export { createNode, createPool, createReservation, updatePool } from './commands/resources.js';
export { renderResources } from './commands/render-resources.js';
export { getResources } from './commands/get-resources.js';
export { parseResourceKind } from './commands/resource-kind.js';
export type { ResourceKind, ResourceObject } from './commands/resource-kind.js';
export { renderVersion, showVersion } from './commands/show-version.js';
export { buildPoolMap, showPoolMap } from './commands/pool-map.js';
export { renderPoolMap } from './commands/render-pool-map.js';
export type { PoolMap, PoolMapBlock, PoolMapPool } from './commands/render-pool-map.js';
export type { VersionInfo } from './commands/show-version.js';
export type { PoolFlags } from './commands/resources.js';
export { MAX_MANIFEST_BYTES, parseManifests, runManifests } from './commands/manifests.js';
export type { Manifest, ManifestAction, ManifestKind } from './commands/manifests.js';

export { runCtl } from './cli/run-ctl.js';
export { readTextFile, readTextStream } from './cli/read-bounded.js';
export type { BoundedReadOptions } from './cli/read-bounded.js';
export type {
  CommandContext,
  CommandOutput,
  CommandSpec,
  CtlIo,
  Store,
} from './cli/command-spec.js';

export { checkIpam } from './commands/ipam-check.js';
export type { CheckOptions, CheckResult } from './commands/ipam-check.js';
export type { KubeReader } from './commands/kube-reader.js';
export { parseCheckReport, serializeCheckReport } from './commands/check-report.js';
export type { CheckReport, ReportAllocation, ReportHandle } from './commands/check-report.js';
export { releaseFromReports, releaseIp } from './commands/ipam-release.js';
export type { ReleaseFromReportsOptions } from './commands/ipam-release.js';
export type { MergedReports } from './commands/merge-reports.js';
export type { NamedReport } from './commands/vet-reports.js';
export { splitPool } from './commands/ipam-split.js';
export type { SplitOptions } from './commands/ipam-split.js';
export { setDatastoreLock } from './commands/datastore-lock.js';
export { exportDatastore, importDatastore, parseExport } from './commands/datastore-migrate.js';
export type { ExportOptions, NodeRenames } from './commands/datastore-migrate.js';
export { createProgress } from './cli/progress-reporter.js';
export type { Progress, ProgressOptions } from './cli/progress-reporter.js';
