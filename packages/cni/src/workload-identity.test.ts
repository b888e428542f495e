import { describe, expect, it } from 'vitest';
import {
  allocationAttrs,
  handleIdFor,
  mayShareHandle,
  ownerOf,
  workloadIdFor,
} from './workload-identity.js';

describe('workload identity', () => {
  it.each([
    ['3f2a', undefined, 'k8s-pod-network.3f2a'],
    ['3f2a', 'eth0', 'k8s-pod-network.3f2a'],
    ['3f2a', 'eth1', 'k8s-pod-network.3f2a.eth1'],
    ['3f2a', 'net1', 'k8s-pod-network.3f2a.net1'],
  ])('the handle of container %s on %s is %s', (cid, ifname, handle) => {
    expect(handleIdFor('k8s-pod-network', cid, ifname)).toBe(handle);
  });

  it.each([
    ['3f2a', 'eth0', false],
    ['3f2a', 'eth1', true],
    ['a.b', 'eth0', true],
  ])('container %s on %s may share its handle with another attachment: %s', (c, i, shared) => {
    expect(mayShareHandle({ containerId: c, ifname: i })).toBe(shared);
  });

  it('the coinciding handles mayShareHandle warns about', () => {
    expect(handleIdFor('n', 'a', 'eth1')).toBe(handleIdFor('n', 'a.eth1', 'eth0'));
  });

  it.each([
    [{ k8s: { namespace: 'ns', pod: 'p' } }, 'ns.p'],
    [{}, 'cid'],
  ])('workload ID of %j is %s', (args, id) => {
    expect(workloadIdFor(args, 'cid')).toBe(id);
  });

  it('attributes: node, timestamp, pod and namespace for k8s, container ID and interface', () => {
    const now = Date.UTC(2024, 0, 1);
    const attachment = { containerId: 'c1', ifname: 'eth1' };
    expect(allocationAttrs({ nodename: 'n', cniArgs: {}, nowMs: now, attachment })).toEqual({
      node: 'n',
      timestamp: '2024-01-01 00:00:00 +0000 UTC',
      containerID: 'c1',
      ifname: 'eth1',
    });
    expect(
      allocationAttrs({
        nodename: 'n',
        cniArgs: { k8s: { namespace: 'ns', pod: 'p' } },
        nowMs: now,
        attachment,
      }),
    ).toMatchObject({ node: 'n', namespace: 'ns', pod: 'p', containerID: 'c1', ifname: 'eth1' });
  });

  it.each([
    [
      { node: 'n', containerID: 'c1', ifname: 'net1' },
      { containerId: 'c1', ifname: 'net1' },
    ],
    [
      { node: 'n', containerID: 'c1' },
      { containerId: 'c1', ifname: 'eth0' },
    ],
    [{ node: 'n', namespace: 'ns', pod: 'p' }, undefined],
  ])('the owner recorded in %j is %j', (attrs, owner) => {
    expect(ownerOf(attrs)).toEqual(owner);
  });
});
