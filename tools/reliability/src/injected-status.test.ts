import { describe, expect, it } from 'vitest';
import { pickInjectedStatus } from './injected-status.js';
import type { Storm } from './injected-status.js';

/** A `random` that returns `values` in turn. */
function sequence(...values: number[]): () => number {
  let i = 0;
  return () => values[i++] ?? 0;
}

describe('pickInjectedStatus', () => {
  const storm: Storm = { statuses: [409, 429, 500], rate: 0.5 };

  it.each([
    { name: 'no storm', storm: undefined, write: true, random: [0], status: undefined },
    { name: 'a request the rate spares', storm, write: true, random: [0.5], status: undefined },
    { name: 'a write, first status', storm, write: true, random: [0.1, 0], status: 409 },
    { name: 'a write, last status', storm, write: true, random: [0.1, 0.99], status: 500 },
    { name: 'a read never gets 409', storm, write: false, random: [0.1, 0], status: 429 },
    {
      name: 'a read in a 409-only storm',
      storm: { statuses: [409], rate: 1 } as const,
      write: false,
      random: [0, 0],
      status: undefined,
    },
  ])('$name → $status', ({ storm: s, write, random, status }) => {
    expect(pickInjectedStatus(s, write, sequence(...random))).toBe(status);
  });
});
