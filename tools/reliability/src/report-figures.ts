import { appendFileSync } from 'node:fs';

/**
 * Prints one test's figures as a `[reliability]` line, and appends them (JSON lines) to
 * `NETLEDGER_RELIABILITY_REPORT` when set: docs/reliability.md's tables come from such a file.
 */
export function reportFigures(test: string, figures: Record<string, unknown>): void {
  const line = JSON.stringify({ test, ...figures });
  console.log(`[reliability] ${line}`);
  const file = process.env.NETLEDGER_RELIABILITY_REPORT;
  if (file) appendFileSync(file, `${line}\n`);
}
