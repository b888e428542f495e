import { describe, expect, it } from 'vitest';
import { nodeReadiness } from './node-condition.js';

describe('nodeReadiness', () => {
  it.each([
    [{}, { ready: false, why: 'no Ready condition yet' }],
    [
      {
        status: { conditions: [{ type: 'Ready', status: 'False', message: 'network not ready' }] },
      },
      { ready: false, why: 'network not ready' },
    ],
    [
      { status: { conditions: [{ type: 'Ready', status: 'Unknown' }] } },
      { ready: false, why: 'Ready=Unknown' },
    ],
    [
      {
        status: {
          conditions: [
            { type: 'MemoryPressure', status: 'False' },
            { type: 'Ready', status: 'True' },
          ],
        },
      },
      { ready: true, why: 'Ready=True' },
    ],
  ])('%j', (node, expected) => {
    expect(nodeReadiness(node)).toEqual(expected);
  });
});
