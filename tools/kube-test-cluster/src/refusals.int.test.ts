// kube-test-cluster refuses what cannot work before it starts or changes anything.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clusterLayout } from './cluster-layout.js';
import { renderContainerdConfig } from './containerd-config.js';
import { HOST_PROGRAMS } from './host-prerequisites.js';
import { PAUSE_IMAGE } from './node-images.js';
import { runCommand } from './run-command.js';
import { clusterCli } from './test-cluster-cli.js';

describe('kube-test-cluster refuses, changing nothing', () => {
  let parent: string;
  beforeEach(async () => {
    parent = await mkdtemp(join(tmpdir(), 'ktc-refuse-'));
  });
  afterEach(async () => {
    await rm(parent, { recursive: true, force: true });
  });

  it('--cni netledger without the images and manifests: says which files are missing', async () => {
    const dir = join(parent, 'cluster');
    const up = await clusterCli(['up', '--dir', dir, '--cni', 'netledger'], {
      env: { ...process.env, KUBE_TEST_CLUSTER_NETLEDGER_FROM: parent },
    });
    expect(up.status).toBe(1);
    expect(up.stderr.trim()).toBe(
      'kube-test-cluster: --cni netledger: missing dist/images/netledger-node.oci.tar, ' +
        'dist/images/netledger-kube-controllers.oci.tar, ' +
        'deploy/overlays/kubernetes/kustomization.yaml. ' +
        "It installs netledger from the project's own images (`pnpm images` writes " +
        'dist/images/netledger-node.oci.tar and netledger-kube-controllers.oci.tar) and its ' +
        'kustomize overlay for the Kubernetes datastore (deploy/overlays/kubernetes); build them ' +
        'first, or use --cni host-local.',
    );
    expect(existsSync(dir)).toBe(false);
  });

  it('up into a directory that is not empty: exit 2', async () => {
    await writeFile(join(parent, 'keep'), 'x');
    const up = await clusterCli(['up', '--dir', parent, '--cni', 'host-local']);
    expect(up.status).toBe(2);
    expect(up.stderr).toContain(`--dir ${parent}: not empty`);
    expect(await readdir(parent)).toEqual(['keep']);
  });

  it('up onto a file: exit 2', async () => {
    await writeFile(join(parent, 'file'), 'x');
    const up = await clusterCli(['up', '--dir', join(parent, 'file'), '--cni', 'host-local']);
    expect(up.status).toBe(2);
    expect(up.stderr).toContain(`--dir ${join(parent, 'file')}: not a directory`);
    expect(await readdir(parent)).toEqual(['file']);
  });

  it('down on a directory that up did not make: exit 1', async () => {
    await mkdir(join(parent, 'kubelet'));
    const down = await clusterCli(['down', '--dir', parent]);
    expect(down.status).toBe(1);
    expect(down.stderr).toContain('no cluster.json of kube-test-cluster there; not touching it');
    expect(await readdir(parent)).toEqual(['kubelet']);
  });

  it.each([
    [
      ['up', '--dir', 'x', '--cni', 'calico'],
      /--cni calico: expected one of netledger, host-local/,
    ],
    [['up', '--dir', `/tmp/${'d'.repeat(80)}`], /too long for containerd's socket/],
    [['stop', '--dir', 'x'], /unknown command: stop/],
  ])('bad usage %j: exit 2', async (args, message) => {
    const r = await clusterCli(args);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(message);
  });

  it('down on a directory that does not exist: nothing to do', async () => {
    const down = await clusterCli(['down', '--dir', join(parent, 'none')]);
    expect(down.status).toBe(0);
    expect(down.stderr).toContain('does not exist: nothing to do');
  });
});

describe("containerd's config", () => {
  it('is one containerd 1.6 reads, with every path of its own under DIR', async () => {
    const parent = await mkdtemp(join(tmpdir(), 'ktc-config-'));
    try {
      const layout = clusterLayout(join(parent, 'c'));
      const file = join(parent, 'config.toml');
      await writeFile(
        file,
        renderContainerdConfig({
          layout,
          sandboxImage: PAUSE_IMAGE,
          runc: HOST_PROGRAMS.runc.path,
        }),
      );
      const dump = await runCommand(HOST_PROGRAMS.containerd.path, [
        '--config',
        file,
        'config',
        'dump',
      ]);
      expect(dump.status, dump.stderr).toBe(0);
      const lines = dump.stdout.split('\n').map((l) => l.trim());
      for (const line of [
        `root = "${layout.containerd.root}"`,
        `state = "${layout.containerd.state}"`,
        `address = "${layout.containerd.socket}"`,
        `path = "${layout.containerd.opt}"`,
        `bin_dir = "${layout.cni.binDir}"`,
        `conf_dir = "${layout.cni.confDir}"`,
        `sandbox_image = "${PAUSE_IMAGE}"`,
        'netns_mounts_under_state_dir = true',
        'restrict_oom_score_adj = true',
        `Root = "${layout.containerd.runcRoot}"`,
        'SystemdCgroup = false',
      ]) {
        expect(lines).toContain(line);
      }
      // None of containerd's defaults outside DIR is left.
      expect(dump.stdout).not.toMatch(
        /\/var\/lib\/containerd|"\/run\/containerd|\/opt\/(cni|containerd)|\/etc\/cni/,
      );
    } finally {
      await rm(parent, { recursive: true, force: true });
    }
  });
});
