export { percentile, writeBenchResults } from './bench-report.js';
export type { BenchReport, BenchResult } from './bench-report.js';
export { cniEnv, mustSucceed, timedRun, workspaceRoot } from './bench-process.js';
export type { TimedRun } from './bench-process.js';
