// Each overlay's rendered manifest against the real kube-apiserver (tools/kube-test-apiserver):
// a server-side dry run accepts every object (schemas, defaults, admission: priority classes,
// RBAC escalation checks); the Kubernetes overlay applied for real gives the agent's and the
// controllers' ServiceAccounts the rights they use.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startKubeApiserver } from '@netledger/testkit';
import type { KubeApiserverFixture } from '@netledger/testkit';
import { OVERLAYS, kubectlBinary, renderOverlay } from './render-overlay.js';
import { parseObjects } from './test-manifests.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

let api: KubeApiserverFixture;
beforeAll(async () => {
  api = await startKubeApiserver();
}, 180_000);
afterAll(async () => {
  await api?.stop();
});

async function kubectl(args: string[], input?: string): Promise<string> {
  const r = await api.kubectl(args, input === undefined ? {} : { input });
  if (r.status !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

describe('the rendered manifests on kube-apiserver', () => {
  it.each(OVERLAYS)(
    'a server-side dry run of the %s overlay accepts every object',
    async (overlay) => {
      const yaml = renderOverlay(ROOT, overlay, kubectlBinary(process.env));
      const out = await kubectl(['apply', '--dry-run=server', '-f', '-'], yaml);
      const lines = out.trim().split('\n');
      expect(lines).toHaveLength(parseObjects(yaml).length);
      for (const line of lines)
        expect(line).toMatch(/ (created|configured|unchanged) \(server dry run\)$/);
    },
  );

  it('the kubernetes overlay, applied, gives the agent and the controllers what they use', async () => {
    const yaml = renderOverlay(ROOT, 'kubernetes', kubectlBinary(process.env));
    await kubectl(['apply', '--server-side', '-f', '-'], yaml);
    await kubectl([
      'wait',
      '--for',
      'condition=Established',
      '--timeout=60s',
      'crd/ipamblocks.crd.projectcalico.org',
    ]);
    const can = async (as: 'node-agent' | 'kube-controllers', ...what: string[]) =>
      (await api.kubectl(['auth', 'can-i', ...what], { as })).stdout.trim();
    expect(await can('node-agent', 'update', 'ipamblocks.crd.projectcalico.org')).toBe('yes');
    expect(await can('node-agent', 'watch', 'blockaffinities.crd.projectcalico.org')).toBe('yes');
    expect(await can('node-agent', 'get', 'pods', '-n', 'default')).toBe('yes');
    expect(await can('node-agent', 'delete', 'pods', '-n', 'default')).toBe('no');
    // Gateway mode (install-cni's conflist): the network's reservation of its gateway addresses.
    expect(await can('node-agent', 'create', 'ipreservations.crd.projectcalico.org')).toBe('yes');
    expect(await can('node-agent', 'update', 'ipreservations.crd.projectcalico.org')).toBe('yes');
    expect(await can('node-agent', 'delete', 'ipreservations.crd.projectcalico.org')).toBe('no');
    expect(await can('kube-controllers', 'delete', 'ipamhandles.crd.projectcalico.org')).toBe(
      'yes',
    );
    expect(await can('kube-controllers', 'create', 'leases', '-n', 'kube-system')).toBe('yes');
    expect(await can('kube-controllers', 'update', 'nodes')).toBe('no');
    // Applied as the API server stored them, the objects are there.
    const ds = await kubectl([
      '-n',
      'kube-system',
      'get',
      'daemonset/netledger-node',
      '-o',
      'name',
    ]);
    expect(ds.trim()).toBe('daemonset.apps/netledger-node');
  });
});
