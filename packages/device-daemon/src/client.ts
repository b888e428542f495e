// `@netledger/device-daemon/client`: talking to a running daemon, and nothing else (no daemon
// code, no native addon, no node:http), so a client process starts fast.
export { createDeviceClient } from './device-client.js';
/** @public The client's type: the apps' test harnesses return it without naming it. */
export type { DeviceClient } from './device-client.js';
