import { describe, expect, it } from 'vitest';
import {
  allocationAttrs,
  goUtcTimestamp,
  handleIdFor,
  workloadIdFor,
} from './workload-identity.js';

describe('workload identity', () => {
  it('handle is <network>.<containerID>', () => {
    expect(handleIdFor('k8s-pod-network', '3f2a')).toBe('k8s-pod-network.3f2a');
  });

  it.each([
    [{ k8s: { namespace: 'ns', pod: 'p' } }, 'ns.p'],
    [{}, 'cid'],
  ])('workload ID of %j is %s', (args, id) => {
    expect(workloadIdFor(args, 'cid')).toBe(id);
  });

  it.each([
    [Date.UTC(2024, 4, 1, 12, 34, 56, 789), '2024-05-01 12:34:56.789 +0000 UTC'],
    [Date.UTC(2024, 0, 2, 3, 4, 5, 100), '2024-01-02 03:04:05.1 +0000 UTC'],
    [Date.UTC(2024, 0, 2, 3, 4, 5, 0), '2024-01-02 03:04:05 +0000 UTC'],
  ])('Go UTC timestamp of %d', (ms, text) => {
    expect(goUtcTimestamp(ms)).toBe(text);
  });

  it('attributes: node, timestamp, and pod and namespace for k8s', () => {
    const now = Date.UTC(2024, 0, 1);
    expect(allocationAttrs({ nodename: 'n', cniArgs: {}, nowMs: now })).toEqual({
      node: 'n',
      timestamp: '2024-01-01 00:00:00 +0000 UTC',
    });
    expect(
      allocationAttrs({
        nodename: 'n',
        cniArgs: { k8s: { namespace: 'ns', pod: 'p' } },
        nowMs: now,
      }),
    ).toEqual({ node: 'n', namespace: 'ns', pod: 'p', timestamp: '2024-01-01 00:00:00 +0000 UTC' });
  });
});
