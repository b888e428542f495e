import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { startKubeApiserver } from '@netledger/testkit';
import type { KubeApiserverFixture } from '@netledger/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// bin/netledgerctl (the bundle `pnpm build` makes) on the Kubernetes store of the real API server,
// with Calico's CRDs applied by kubectl, as `DATASTORE_TYPE=kubernetes KUBECONFIG=...` runs it.
const root = join(import.meta.dirname, '..', '..', '..');
const bin = join(root, 'apps', 'ctl', 'dist', 'netledgerctl.mjs');
let api: KubeApiserverFixture;

beforeAll(async () => {
  api = await startKubeApiserver();
  const crds = join(root, 'packages', 'datastore-k8s', 'crds');
  expect((await api.kubectl(['apply', '-f', crds])).status).toBe(0);
  const established = await api.kubectl([
    'wait',
    '--for=condition=Established',
    'crd',
    '--all',
    '--timeout=60s',
  ]);
  expect(established.status).toBe(0);
}, 120_000);
afterAll(async () => {
  await api?.stop();
});

function ctl(args: string[]) {
  const env = {
    PATH: process.env.PATH ?? '',
    DATASTORE_TYPE: 'kubernetes',
    KUBECONFIG: api.kubeconfigPath,
  };
  const r = spawnSync('node', [bin, ...args], { env, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('bin/netledgerctl with DATASTORE_TYPE=kubernetes', () => {
  it('creates a pool, assigns on a node, shows, checks and releases, in Calico CRDs kubectl reads', async () => {
    expect(
      ctl([
        'ippool',
        'create',
        '--name',
        'k8s-pool',
        '--cidr',
        '10.60.0.0/24',
        '--block-size',
        '28',
      ]),
    ).toMatchObject({
      code: 0,
      stdout: 'Successfully created IPPool k8s-pool (10.60.0.0/24)\n',
    });
    expect(ctl(['node', 'create', 'worker-1']).code).toBe(0);
    const assigned = ctl([
      'ipam',
      'assign',
      '--node',
      'worker-1',
      '--handle',
      'k8s-pod-network.c1',
      '--attr',
      'namespace=default',
      '--attr',
      'pod=web-0',
      '--attr',
      'node=worker-1',
    ]);
    expect(assigned).toMatchObject({ code: 0, stderr: '' });
    const address = /^(10\.60\.0\.\d+)\/28\n$/.exec(assigned.stdout)?.[1];
    expect(address).toBeDefined();

    const blocks = await api.kubectl(['get', 'ipamblocks', '-o', 'json']);
    const block = (
      JSON.parse(blocks.stdout) as {
        items: { metadata: { name: string }; spec: { cidr: string; affinity: string } }[];
      }
    ).items[0]!;
    expect(block.metadata.name).toBe(block.spec.cidr.replace(/[./]/g, '-'));
    expect(block.spec.affinity).toBe('host:worker-1');
    const affinities = await api.kubectl([
      'get',
      'blockaffinities',
      '-o',
      'jsonpath={.items[*].spec.node}',
    ]);
    expect(affinities.stdout).toBe('worker-1');

    const show = ctl(['ipam', 'show', '--show-blocks']);
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(/\| IP Pool {2}\| 10\.60\.0\.0\/24 +\| +256 \| +1 \(0%\) \|/);
    expect(ctl(['ipam', 'check']).stdout).toContain('Check complete; found 0 problems.\n');
    expect(ctl(['ipam', 'release-handle', '--handle', 'k8s-pod-network.c1'])).toMatchObject({
      code: 0,
    });
    expect(ctl(['ipam', 'show', '--ip', address!]).stdout).toBe(`${address} is not assigned\n`);
    const handles = await api.kubectl(['get', 'ipamhandles', '-o', 'name']);
    expect(handles.stdout).toBe('');
  }, 180_000);

  it('says which kubeconfig it could not load', () => {
    const r = spawnSync('node', [bin, 'ipam', 'show'], {
      env: {
        PATH: process.env.PATH ?? '',
        DATASTORE_TYPE: 'kubernetes',
        KUBECONFIG: '/nonexistent/kubeconfig',
      },
      encoding: 'utf8',
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(
      /^Error: cannot load Kubernetes config from \/nonexistent\/kubeconfig: ENOENT[^\n]*\n$/,
    );
  });
});
