import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isIpamError } from '../errors.js';
import type { IPPool, IPPoolAllowedUse } from '../model/resources.js';
import { createPoolClaim, poolMayUse } from './pool-claim.js';
import { determinePools, filterPoolsByUse, maxPrefixLength } from './pool-qualification.js';
import { testPool } from './test-pools.js';

const node = { name: 'n1', labels: { zone: 'a' } };

describe('createPoolClaim', () => {
  const pools = [
    testPool('auto', { cidr: '10.0.0.0/24' }),
    testPool('manual', { cidr: '10.1.0.0/24', assignmentMode: 'Manual' }),
    testPool('zone-b', { cidr: '10.2.0.0/24', nodeSelector: 'zone == "b"' }),
    testPool('tunnel', { cidr: '10.3.0.0/24', allowedUses: ['Tunnel'] }),
    testPool('off', { cidr: '10.4.0.0/24', disabled: true }),
    testPool('tiny-blocks', { cidr: '10.5.0.0/24', blockSize: 31 }),
    testPool('prod', { cidr: '10.6.0.0/24', namespaceSelector: 'env == "prod"' }),
    testPool('masked', { cidr: '10.0.0.0/25' }),
    testPool('v6', { cidr: 'fd00::/120' }),
  ].map((p) =>
    p.metadata.name === 'auto'
      ? { ...p, status: { conditions: [{ type: 'Allocatable', status: 'True' }] } }
      : p,
  );
  const claim = createPoolClaim(pools);

  it.each<[string, IPPoolAllowedUse, Record<string, string> | undefined, boolean]>([
    ['auto', 'Workload', undefined, true],
    ['v6', 'Workload', undefined, true],
    ['manual', 'Workload', undefined, false],
    ['zone-b', 'Workload', undefined, false],
    ['tunnel', 'Workload', undefined, false],
    ['tunnel', 'Tunnel', undefined, true],
    ['off', 'Workload', undefined, false],
    ['masked', 'Workload', undefined, false],
    ['prod', 'Workload', undefined, false],
    ['prod', 'Workload', { env: 'prod' }, true],
    ['unknown', 'Workload', undefined, false],
  ])('%s for %s (namespace %j) -> %s', (pool, use, namespaceLabels, expected) => {
    expect(claim.mayUse({ pool, node, use, namespaceLabels })).toBe(expected);
  });

  it('rules out pools whose blocks are too small for host-reserved addresses', () => {
    expect(claim.mayUse({ pool: 'tiny-blocks', node, use: 'Workload' })).toBe(true);
    const windows = { startOfBlock: 3, endOfBlock: 1 };
    expect(
      claim.mayUse({ pool: 'tiny-blocks', node, use: 'Workload', hostReserved: windows }),
    ).toBe(false);
  });

  it('accepts a pool object and has a one-off form', () => {
    expect(claim.mayUse({ pool: pools[0]!, node, use: 'Workload' })).toBe(true);
    expect(poolMayUse({ pool: 'auto', pools, node, use: 'Tunnel' })).toBe(true);
    expect(claim.enabled(4).map((p) => p.metadata.name)).not.toContain('masked');
  });

  it('gives the same answer as determinePools + filterPoolsByUse (property)', () => {
    const cidrs = ['10.0.0.0/24', '10.0.0.0/25', '10.0.1.0/24', '10.0.0.0/16', 'fd00::/120'];
    const selectors = ['', 'all()', 'zone == "a"', 'zone != "a"', 'has(gpu)'];
    const poolArb = fc.record({
      cidr: fc.constantFrom(...cidrs),
      nodeSelector: fc.constantFrom(...selectors),
      namespaceSelector: fc.constantFrom('', 'env == "prod"'),
      disabled: fc.boolean(),
      manual: fc.boolean(),
      uses: fc.constantFrom<IPPoolAllowedUse[]>(['Workload', 'Tunnel'], ['Tunnel'], ['Workload']),
      blockSize: fc.constantFrom(undefined, 30),
      allocatable: fc.constantFrom(undefined, 'True' as const, 'False' as const),
      terminating: fc.boolean(),
    });
    fc.assert(
      fc.property(
        fc.array(poolArb, { maxLength: 6 }),
        fc.dictionary(fc.constantFrom('zone', 'gpu'), fc.constantFrom('a', 'b')),
        fc.option(fc.constant({ env: 'prod' }), { nil: undefined }),
        fc.constantFrom<IPPoolAllowedUse>('Workload', 'Tunnel'),
        fc.boolean(),
        (specs, labels, namespaceLabels, use, windows) => {
          const pools: IPPool[] = specs.map((s, i) =>
            testPool(
              `p${i}`,
              {
                cidr: s.cidr,
                nodeSelector: s.nodeSelector,
                namespaceSelector: s.namespaceSelector,
                disabled: s.disabled,
                assignmentMode: s.manual ? 'Manual' : 'Automatic',
                allowedUses: s.uses,
                blockSize: s.cidr.includes(':') ? undefined : s.blockSize,
              },
              { allocatable: s.allocatable, terminating: s.terminating },
            ),
          );
          const hostReserved = windows ? { startOfBlock: 3, endOfBlock: 1 } : undefined;
          const n = { name: 'n', labels };
          const c = createPoolClaim(pools);
          for (const version of [4, 6] as const) {
            let chosen: string[];
            try {
              const { selected } = determinePools({
                version,
                node: n,
                namespaceLabels,
                maxPrefixLen: maxPrefixLength(version, hostReserved),
                pools,
              });
              chosen = filterPoolsByUse(selected, use).map((p) => p.metadata.name);
            } catch (e) {
              if (!isIpamError(e, 'NoQualifiedPool')) throw e;
              chosen = [];
            }
            for (const p of pools.filter((x) => x.spec.cidr.includes(':') === (version === 6))) {
              const may = c.mayUse({ pool: p, node: n, use, namespaceLabels, hostReserved });
              expect(may).toBe(chosen.includes(p.metadata.name));
            }
          }
        },
      ),
    );
  });
});
