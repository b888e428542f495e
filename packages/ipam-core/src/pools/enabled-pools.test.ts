import { describe, expect, it } from 'vitest';
import type { IPPool } from '../model/resources.js';
import { enabledPools } from './enabled-pools.js';
import { testPool } from './test-pools.js';

// The GetEnabledPools overlap mask, one case per rule of the design paragraph.
describe('enabledPools overlap masking', () => {
  const names = (pools: IPPool[], version: 4 | 6 = 4): string[] =>
    enabledPools(pools, version).map((p) => p.metadata.name);
  const active = testPool('active', { cidr: '10.0.0.0/24' }, { allocatable: 'True' });

  it.each<[string, IPPool[], string[]]>([
    [
      'an unmarked pool inside an allocatable one is masked',
      [active, testPool('new', { cidr: '10.0.0.0/26' })],
      ['active'],
    ],
    [
      'an unmarked pool equal to an allocatable one is masked',
      [active, testPool('new', { cidr: '10.0.0.0/24' })],
      ['active'],
    ],
    [
      'an unmarked pool wider than an allocatable one is masked',
      [active, testPool('new', { cidr: '10.0.0.0/16' })],
      ['active'],
    ],
    [
      'an unmarked pool clear of the allocatable one stays',
      [active, testPool('new', { cidr: '10.1.0.0/24' })],
      ['active', 'new'],
    ],
    [
      'a pool marked Allocatable=True is taken at its word',
      [active, testPool('marked', { cidr: '10.0.0.0/26' }, { allocatable: 'True' })],
      ['active', 'marked'],
    ],
    [
      'a terminating pool masks, though it is not itself enabled',
      [
        testPool('old', { cidr: '10.0.0.0/24' }, { terminating: true }),
        testPool('new', { cidr: '10.0.0.0/24' }),
      ],
      [],
    ],
    [
      'a terminating Allocatable=True pool masks',
      [
        testPool('old', { cidr: '10.0.0.0/24' }, { terminating: true, allocatable: 'True' }),
        testPool('new', { cidr: '10.0.0.0/25' }),
      ],
      [],
    ],
    [
      'a disabled allocatable pool never masks',
      [
        testPool('off', { cidr: '10.0.0.0/24', disabled: true }, { allocatable: 'True' }),
        testPool('new', { cidr: '10.0.0.0/24' }),
      ],
      ['new'],
    ],
    [
      'a disabled terminating pool never masks',
      [
        testPool('off', { cidr: '10.0.0.0/24', disabled: true }, { terminating: true }),
        testPool('new', { cidr: '10.0.0.0/24' }),
      ],
      ['new'],
    ],
    [
      'two unmarked overlapping pools do not mask each other',
      [testPool('a', { cidr: '10.0.0.0/24' }), testPool('b', { cidr: '10.0.0.0/25' })],
      ['a', 'b'],
    ],
    [
      'an Allocatable=False pool is excluded and does not mask',
      [
        testPool('loser', { cidr: '10.0.0.0/24' }, { allocatable: 'False' }),
        testPool('new', { cidr: '10.0.0.0/24' }),
      ],
      ['new'],
    ],
    [
      'a pool of the other family does not mask',
      [
        testPool('v6', { cidr: 'fd00::/64' }, { allocatable: 'True' }),
        testPool('new', { cidr: '10.0.0.0/24' }),
      ],
      ['new'],
    ],
  ])('%s', (_what, pools, expected) => {
    expect(names(pools)).toEqual(expected);
  });

  it('applies filterIPPool: terminating, disabled, Allocatable=False, other family, bad CIDR; name order', () => {
    const pools = [
      testPool('z', { cidr: '10.9.0.0/24' }),
      testPool('dying', { cidr: '10.1.0.0/24' }, { terminating: true }),
      testPool('off', { cidr: '10.2.0.0/24', disabled: true }),
      testPool('false', { cidr: '10.3.0.0/24' }, { allocatable: 'False' }),
      testPool('six', { cidr: 'fd00::/64' }),
      { metadata: { name: 'broken' }, spec: { cidr: 'nonsense' } },
      testPool('a', { cidr: '10.8.0.0/24' }),
    ];
    expect(names(pools)).toEqual(['a', 'z']);
    expect(names(pools, 6)).toEqual(['six']);
  });
});
