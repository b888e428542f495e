import { describe, expect, it } from 'vitest';
import { testPool } from '../pools/test-pools.js';
import { checkRequestedPools } from './check-pool-family.js';

const pools = [
  testPool('pool4', { cidr: '10.0.0.0/24' }),
  testPool('off', { cidr: '30.0.0.0/24', disabled: true }),
  testPool('pool6', { cidr: 'fd00:1::/120' }),
];
const windows = { startOfBlock: 3, endOfBlock: 1 };

describe('checkRequestedPools', () => {
  it.each([
    { case: 'a v4 pool by name in the v6 list', version: 6, requested: ['pool4'] },
    { case: 'an unknown name', version: 6, requested: ['nope'] },
    { case: 'a disabled pool', version: 4, requested: ['10.0.0.0/24', 'off'] },
    { case: 'a pool not in the store', version: 4, requested: ['40.0.0.0/24'] },
  ] as const)('refuses $case', ({ version, requested }) => {
    expect(() => checkRequestedPools(pools, [{ version, requested }])).toThrow(
      expect.objectContaining({ code: 'InvalidArgument' }),
    );
  });

  it('accepts good lists by name or CIDR, and families without a list', () => {
    expect(() =>
      checkRequestedPools(pools, [
        { version: 4, requested: ['pool4'], hostReserved: windows },
        { version: 6, requested: ['fd00:1::/120'] },
        { version: 6 },
      ]),
    ).not.toThrow();
  });
});
