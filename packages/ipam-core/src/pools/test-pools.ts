import type { Condition, IPPool, IPPoolSpec } from '../model/resources.js';
import { withPoolDefaults } from './pool-defaults.js';

/** Test builder: a defaulted pool named `name` with the given spec fields. */
export function testPool(
  name: string,
  spec: Partial<IPPoolSpec> & { cidr: string },
  extra: { allocatable?: 'True' | 'False'; terminating?: boolean } = {},
): IPPool {
  const conditions: Condition[] =
    extra.allocatable === undefined ? [] : [{ type: 'Allocatable', status: extra.allocatable }];
  return withPoolDefaults({
    metadata: {
      name,
      ...(extra.terminating && { deletionTimestamp: '2026-01-01T00:00:00Z' }),
    },
    spec,
    ...(conditions.length > 0 && { status: { conditions } }),
  });
}
