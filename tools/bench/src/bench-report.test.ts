import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { percentile, writeBenchResults } from './bench-report.js';

describe('percentile', () => {
  it.each([
    [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 50, 5],
    [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 99, 10],
    [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 10, 1],
    [[7], 99, 7],
  ])('of %j at p%d is %d (nearest rank)', (samples, p, expected) => {
    expect(percentile(samples, p)).toBe(expected);
  });

  it('is NaN for no samples', () => {
    expect(percentile([], 50)).toBeNaN();
  });
});

describe('writeBenchResults', () => {
  it('writes the report where scripts/bench.mjs collects it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bench-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    writeBenchResults(
      'x',
      { title: 't', command: 'c', results: [{ name: 'n', value: 2, unit: 'ms', better: 'lower' }] },
      dir,
    );
    expect(JSON.parse(readFileSync(join(dir, 'x.json'), 'utf8'))).toMatchObject({
      title: 't',
      results: [{ value: 2 }],
    });
  });
});
