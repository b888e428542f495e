export { percentile, writeBenchResults } from './bench-report.js';
export type { BenchReport, BenchResult } from './bench-report.js';
