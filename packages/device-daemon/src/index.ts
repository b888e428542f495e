// The public entry: what netledger-device (apps/device-daemon) needs to serve, check and render.
// The client of a running daemon is in `@netledger/device-daemon/client`. README.md lists both.
export { DeviceError, isDeviceError, toErrorBody } from './device-error.js';
export type { DeviceErrorCode, ErrorBody } from './device-error.js';
export { runDeviceServer } from './run-device-server.js';
export type { DeviceServer, DeviceServerOptions } from './run-device-server.js';
export type {
  ApplyOptions,
  ApplyReport,
  BootReport,
  DeviceDaemon,
  HealthReport,
  StartReport,
} from './device-daemon.js';
export { checkRevision } from './check-revision.js';
export type { CheckReport } from './check-revision.js';
export { readRevisionDir } from './read-revision-dir.js';
export type { RevisionFiles } from './revision.js';
export { parseNetworkBlock } from './parse-run-json.js';
export { renderNetworkArgs } from './render-network-args.js';
export type { NetworkArgs, RenderedNetworkBlock } from './render-network-args.js';
export { createJsonLogger } from './logger.js';
export type { Clock, LogFields, Logger, LogLevel } from './logger.js';
export type { LeaseView, PoolUsage, PoolView } from './views.js';
export type { PoolSpec } from './pool.js';
export type { BakedReservation } from './reserve-baked-addresses.js';
export type { LxcNetworkConfig } from './render-lxc-network.js';
export type { NatBackend } from './nat-driver.js';
export type { RouteSocket } from './netlink-bridge-driver.js';
