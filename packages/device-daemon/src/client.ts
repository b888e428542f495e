// `@netledger/device-daemon/client`: talking to a running daemon, and nothing else (no daemon
// code, no native addon, no node:http), so a client process starts fast.
export { createDeviceClient } from './device-client.js';
export type { DeviceClient } from './device-client.js';
export { DeviceError, isDeviceError, toErrorBody } from './device-error.js';
export type { DeviceErrorCode, ErrorBody } from './device-error.js';
export type { ApplyReport, HealthReport, StartReport } from './device-daemon.js';
export type { LeaseView, PoolUsage, PoolView } from './views.js';
export type { PoolSpec } from './pool.js';
export type { LxcNetworkConfig } from './render-lxc-network.js';
export type { NatBackend } from './nat-driver.js';
