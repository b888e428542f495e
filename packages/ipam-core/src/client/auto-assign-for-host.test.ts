import { describe, expect, it } from 'vitest';
import { createMemoryDatastore } from '../datastore/memory-datastore.js';
import type { AutoAssignArgs } from './assignments.js';
import { createIpamClient } from './ipam-client.js';

describe('autoAssign argument checks', () => {
  const client = createIpamClient({ datastore: createMemoryDatastore() });

  it.each<[string, Partial<AutoAssignArgs>, string]>([
    ['no intended use', { num4: 1, hostname: 'a' }, 'UseRequired'],
    ['no hostname', { num4: 1, intendedUse: 'Workload' }, 'InvalidArgument'],
    ['a negative count', { num4: -1, hostname: 'a', intendedUse: 'Workload' }, 'InvalidArgument'],
    [
      'an IPv4 pool for IPv6',
      { num6: 1, hostname: 'a', intendedUse: 'Workload', ipv6Pools: ['10.0.0.0/24'] },
      'InvalidArgument',
    ],
  ])('%s: the promise rejects (nothing thrown)', async (_, args, code) => {
    let result: Promise<unknown> | undefined;
    expect(() => {
      result = client.autoAssign(args as AutoAssignArgs);
    }).not.toThrow();
    await expect(result).rejects.toMatchObject({ code });
  });
});
