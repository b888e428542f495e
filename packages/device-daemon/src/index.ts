// The public entry: what netledger-device (apps/device-daemon) needs to serve, check and render.
// The client of a running daemon is in `@netledger/device-daemon/client`. README.md lists both.
export { DeviceError } from './device-error.js';
export { runDeviceServer } from './run-device-server.js';
export { checkRevision } from './check-revision.js';
export { readRevisionDir } from './read-revision-dir.js';
export { parseNetworkBlock } from './parse-run-json.js';
export { renderNetworkArgs } from './render-network-args.js';
export { createJsonLogger } from './logger.js';
