import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** One measured figure. */
export interface BenchResult {
  readonly name: string;
  readonly value: number;
  readonly unit: string;
  readonly better: 'higher' | 'lower';
  readonly target?: string;
}

/** A benchmark's report, as scripts/bench.mjs collects it. */
export interface BenchReport {
  readonly title: string;
  /** The command that produced the figures. */
  readonly command: string;
  readonly notes?: string;
  readonly results: BenchResult[];
}

/** Percentile of ascending-sorted samples (nearest rank). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[
    Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))
  ]!;
}

/**
 * Writes `<NETLEDGER_BENCH_DIR>/<name>.json` (scripts/bench.mjs sets the directory; by default
 * `bench-results/` under the working directory) and prints the figures.
 */
export function writeBenchResults(
  name: string,
  report: BenchReport,
  dir = process.env.NETLEDGER_BENCH_DIR ?? 'bench-results',
): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${name}.json`), `${JSON.stringify(report, null, 2)}\n`);
  console.log(`\n${report.title}`);
  for (const r of report.results) console.log(`  ${r.name}: ${r.value.toFixed(2)} ${r.unit}`);
}
