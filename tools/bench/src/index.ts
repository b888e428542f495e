export { percentile, writeBenchResults } from './bench-report.js';
export type { BenchResult } from './bench-report.js';
export { cniEnv, mustSucceed, timedRun, workspaceRoot } from './bench-process.js';
