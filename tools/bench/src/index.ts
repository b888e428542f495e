export { percentile, writeBenchResults } from './bench-report.js';
/**
 * Used by the bench/ scripts of other workspaces (node-agent, datastore-k8s, device-daemon,
 * kube-controllers), which run through scripts/run-ts.mjs: knip does not follow them.
 * @public
 */
export type { BenchResult } from './bench-report.js';
/**
 * Used by apps/node-agent's bench/ scripts (run through scripts/run-ts.mjs, which knip does not
 * follow).
 * @public
 */
export { cniEnv, mustSucceed, timedRun, workspaceRoot } from './bench-process.js';
