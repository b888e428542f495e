// What tools/kube-test-cluster shares with this tool: the binaries of the pin, and a free port.
export { resolveKubeBinaries } from './kube-binaries.js';
export type { ResolvedKubeBinaries } from './kube-binaries.js';
export { findFreePort } from './free-port.js';
