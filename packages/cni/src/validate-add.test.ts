// ADD validates before it writes: a refused ADD on the file store has not registered its node,
// reserved a gateway or claimed a block.
import { describe, expect, it } from 'vitest';
import { NODE, baseConf, createHarness } from './test-plugin-harness.js';

describe('ADD refuses bad input before writing anything', () => {
  it.each<[string, Record<string, unknown>, Record<string, string>, number, string]>([
    [
      'an unknown pool',
      { ipam: { ipv4_pools: ['nope'] } },
      {},
      7,
      'the given pool (nope) does not exist, or is not enabled',
    ],
    [
      'a pool CIDR no pool has',
      { ipam: { ipv4_pools: ['10.7.0.0/24'] } },
      {},
      7,
      'the given pool (10.7.0.0/24) does not exist',
    ],
    [
      'an unknown IPv6 pool with IPv6 on',
      { ipam: { assign_ipv6: 'true', ipv6_pools: ['v6'] } },
      {},
      7,
      'the given pool (v6)',
    ],
    [
      'IP= outside every pool',
      {},
      { CNI_ARGS: 'IP=10.9.9.9' },
      4,
      'IP=10.9.9.9 is not in an enabled pool',
    ],
    [
      'gateway mode without pools',
      { ipam: { mode: 'gateway' } },
      {},
      7,
      '"mode": "gateway" needs ipv4_pools',
    ],
    [
      'gateway mode with a pool outside the segment',
      { ipam: { mode: 'gateway', ipv4_pools: ['pool0'], ipv4_subnet: '10.2.0.0/24' } },
      {},
      7,
      'pool pool0 (10.1.0.0/24) is outside the segment 10.2.0.0/24',
    ],
    [
      'gateway mode with IP= of the gateway',
      { ipam: { mode: 'gateway', ipv4_pools: ['pool0'] } },
      { CNI_ARGS: 'IP=10.1.0.1' },
      4,
      'IP=10.1.0.1 is a gateway',
    ],
    // Kubernetes' limits on what ADD records (issue 26, item 8): before anything is written.
    [
      'a pod name over 253 bytes',
      {},
      { CNI_ARGS: `K8S_POD_NAMESPACE=ns;K8S_POD_NAME=${'p'.repeat(100_000)}` },
      4,
      'K8S_POD_NAME is not a Kubernetes pod name: it must be no more than 253 bytes (is 100000)',
    ],
    [
      'a pod name with characters a pod cannot have',
      {},
      { CNI_ARGS: 'K8S_POD_NAMESPACE=ns;K8S_POD_NAME=Pod_1' },
      4,
      'K8S_POD_NAME is not a Kubernetes pod name: it must consist of lower case',
    ],
    [
      'a namespace over 63 bytes',
      {},
      { CNI_ARGS: `K8S_POD_NAMESPACE=${'n'.repeat(64)};K8S_POD_NAME=p` },
      4,
      'K8S_POD_NAMESPACE is not a Kubernetes namespace name: it must be no more than 63 bytes (is 64)',
    ],
    [
      'a container ID making the handle longer than an object name',
      {},
      { CNI_CONTAINERID: 'c'.repeat(100_000) },
      4,
      'CNI_CONTAINERID is too long: the handle <network>.<CNI_CONTAINERID> would be 100005 characters, over 253',
    ],
  ])('%s (%#): code %i', async (_, over, env, code, msg) => {
    const h = await createHarness({ registerNode: false });
    const out = await h.run('ADD', baseConf(over), env);
    expect(out.json).toMatchObject({ code, msg: expect.stringContaining(msg) });
    expect(await h.client.nodes.list()).toEqual([]);
    expect(await h.client.reservations.list()).toEqual([]);
    expect((await h.ds.list({ kind: 'IPAMBlock' })).items).toEqual([]);
  });

  it('registers the node once the request is valid', async () => {
    const h = await createHarness({ registerNode: false });
    expect((await h.run('ADD', baseConf({ ipam: { ipv4_pools: ['pool0'] } }))).exitCode).toBe(0);
    expect((await h.client.nodes.list()).map((n) => n.metadata.name)).toEqual([NODE]);
  });

  it('holds only ADD to the limits: a DEL for a long pod name or container ID succeeds', async () => {
    const h = await createHarness();
    const out = await h.run('DEL', baseConf(), {
      CNI_CONTAINERID: 'c'.repeat(1000),
      CNI_ARGS: `K8S_POD_NAMESPACE=ns;K8S_POD_NAME=${'p'.repeat(1000)}`,
    });
    expect(out).toMatchObject({ exitCode: 0, stdout: '' });
  });
});
