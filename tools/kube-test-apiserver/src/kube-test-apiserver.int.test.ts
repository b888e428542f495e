// The real kube-apiserver built from the pin, with Debian's etcd, Calico's CRDs, kubectl and
// @kubernetes/client-node. Needs the binary built (`bin/kube-test-apiserver --build`; npm test
// does it) and kubectl and openssl installed.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CustomObjectsApi, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { startKubeApiserver } from '@netledger/testkit';
import type { KubeApiserverFixture } from '@netledger/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { findFreePort } from './free-port.js';
import { childrenOf, isRunning, processesMentioning } from './test-processes.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const CRDS = join(root, 'packages', 'datastore-k8s', 'crds');
const CALICO_KINDS = [
  'blockaffinities',
  'clusterinformations',
  'ipamblocks',
  'ipamconfigs',
  'ipamhandles',
  'ippools',
  'ipreservations',
  'kubecontrollersconfigurations',
];

const ipamBlock = (name: string, cidr: string, extra = ''): string => `
apiVersion: crd.projectcalico.org/v1
kind: IPAMBlock
metadata:
  name: ${name}
  ${extra}
spec:
  cidr: ${cidr}
  affinity: host:node-1
  allocations: [0, null, null, null]
  attributes: [{ handle_id: h1, secondary: { node: node-1 } }]
  unallocated: [1, 2, 3]
  strictAffinity: false
`;

const ipPool = (name: string, spec: string): string => `
apiVersion: crd.projectcalico.org/v1
kind: IPPool
metadata: { name: ${name} }
spec: ${spec}
`;

/** The etcd and kube-apiserver that a tool process started (not run-ts's esbuild service). */
function servers(pid: number): { pid: number; name: string; argv: readonly string[] }[] {
  return childrenOf(pid)
    .map((c) => ({ ...c, name: c.argv[0]!.split('/').pop()! }))
    .filter((c) => c.name === 'etcd' || c.name === 'kube-apiserver');
}

/** Polls `check` until it is true: for state the API server applies asynchronously (RBAC). */
async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not true within 20 s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("kube-test-apiserver with Calico's CRDs", () => {
  let api: KubeApiserverFixture;

  beforeAll(async () => {
    api = await startKubeApiserver();
    const applied = await api.kubectl(['apply', '-f', CRDS]);
    expect(applied).toMatchObject({ status: 0 });
    const established = await api.kubectl([
      'wait',
      '--for=condition=Established',
      '--timeout=60s',
      ...CALICO_KINDS.map((k) => `crd/${k}.crd.projectcalico.org`),
    ]);
    expect(established).toMatchObject({ status: 0 });
  }, 120_000);

  afterAll(async () => {
    await api?.stop();
  });

  it('serves every Calico kind and the system namespaces', async () => {
    const resources = await api.kubectl([
      'api-resources',
      '--api-group=crd.projectcalico.org',
      '-o',
      'name',
    ]);
    expect(resources.stdout.trim().split('\n').sort()).toEqual(
      CALICO_KINDS.map((k) => `${k}.crd.projectcalico.org`),
    );
    const namespaces = await api.kubectl(['get', 'namespaces', '-o', 'name']);
    expect(namespaces.stdout).toContain('namespace/default');
    expect(namespaces.stdout).toContain('namespace/kube-system');
  });

  it('creates an IPAMBlock, and refuses a replace with a stale resourceVersion', async () => {
    const created = await api.kubectl(['create', '-f', '-'], {
      input: ipamBlock('10-0-0-0-30', '10.0.0.0/30'),
    });
    expect(created).toMatchObject({ status: 0 });
    const read = await api.kubectl(['get', 'ipamblock', '10-0-0-0-30', '-o', 'json']);
    const block = JSON.parse(read.stdout) as {
      metadata: { resourceVersion: string };
      spec: { allocations: (number | null)[]; sequenceNumber: number };
    };
    expect(block.spec).toMatchObject({ allocations: [0, null, null, null], sequenceNumber: 0 });
    const staleVersion = block.metadata.resourceVersion;

    // A replace that changes nothing keeps the resourceVersion: this one adds a label.
    const fresh = await api.kubectl(['replace', '-f', '-'], {
      input: ipamBlock(
        '10-0-0-0-30',
        '10.0.0.0/30',
        `resourceVersion: "${staleVersion}"\n  labels: { step: "2" }`,
      ),
    });
    expect(fresh).toMatchObject({ status: 0 });
    const stale = await api.kubectl(['replace', '-f', '-'], {
      input: ipamBlock(
        '10-0-0-0-30',
        '10.0.0.0/30',
        `resourceVersion: "${staleVersion}"\n  labels: { step: "3" }`,
      ),
    });
    expect(stale.status).not.toBe(0);
    expect(stale.stderr).toMatch(/Conflict.*the object has been modified/s);
    const after = await api.kubectl([
      'get',
      'ipamblock',
      '10-0-0-0-30',
      '-o',
      'jsonpath={.metadata.labels.step}',
    ]);
    expect(after.stdout).toBe('2');
  });

  it('refuses an IPAMConfig with maxBlocksPerHost: -1 and takes 0', async () => {
    const config = (max: number): string => `
apiVersion: crd.projectcalico.org/v1
kind: IPAMConfig
metadata: { name: default }
spec: { autoAllocateBlocks: true, strictAffinity: false, maxBlocksPerHost: ${max} }
`;
    const refused = await api.kubectl(['apply', '-f', '-'], { input: config(-1) });
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toMatch(/spec\.maxBlocksPerHost.*should be greater than or equal to 0/);
    expect((await api.kubectl(['get', 'ipamconfigs', '-o', 'name'])).stdout).toBe('');
    expect(await api.kubectl(['apply', '-f', '-'], { input: config(0) })).toMatchObject({
      status: 0,
    });
  });

  it.each([
    ['a /33', '{ cidr: 10.1.0.0/33 }', /spec\.cidr in body must be of type cidr/],
    ['an unmasked CIDR', '{ cidr: 10.1.0.1/24 }', /IPPool CIDR must be strictly masked/],
    ['IPIP on IPv6', '{ cidr: "fd00:1::/64", ipipMode: Always }', /IPIP is not supported on IPv6/],
    [
      'IPIP with VXLAN',
      '{ cidr: 10.1.0.0/24, ipipMode: Always, vxlanMode: Always }',
      /cannot both be enabled/,
    ],
    [
      'blockSize 19 on IPv4',
      '{ cidr: 10.1.0.0/16, blockSize: 19 }',
      /blockSize must be between 20 and 32/,
    ],
    ['a pool smaller than its block', '{ cidr: 10.1.0.0/28 }', /IP pool size is too small/],
    ['link-local', '{ cidr: 169.254.0.0/24 }', /overlaps with IPv4 link local/],
    [
      'an unknown ipipMode',
      '{ cidr: 10.1.0.0/24, ipipMode: Sometimes }',
      /Unsupported value: "Sometimes"/,
    ],
  ])('refuses an IPPool with %s', async (_what, spec, message) => {
    const refused = await api.kubectl(['create', '-f', '-'], { input: ipPool('bad', spec) });
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toMatch(message);
  });

  it('takes a valid IPPool, defaults it, and refuses a change of its CIDR', async () => {
    const pool = ipPool('pool-1', '{ cidr: 10.2.0.0/16 }');
    expect(await api.kubectl(['create', '-f', '-'], { input: pool })).toMatchObject({ status: 0 });
    const read = await api.kubectl(['get', 'ippool', 'pool-1', '-o', 'jsonpath={.spec}']);
    expect(JSON.parse(read.stdout)).toMatchObject({
      cidr: '10.2.0.0/16',
      nodeSelector: 'all()',
      assignmentMode: 'Automatic',
    });
    const moved = await api.kubectl(['apply', '-f', '-'], {
      input: ipPool('pool-1', '{ cidr: 10.3.0.0/16 }'),
    });
    expect(moved.stderr).toMatch(/CIDR cannot be changed/);
  });

  it("refuses an app's token outside any RBAC grant and allows it after one", async () => {
    const listBlocks = ['get', 'ipamblocks'];
    const listConfigMaps = ['get', 'configmaps', '-n', 'kube-system'];
    for (const args of [listBlocks, listConfigMaps]) {
      const refused = await api.kubectl(args, { as: 'node-agent' });
      expect(refused.status).not.toBe(0);
      expect(refused.stderr).toContain(
        'User "system:serviceaccount:kube-system:netledger-node-agent" cannot list resource',
      );
    }
    const grant = `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: { name: test-ipamblocks-reader }
rules: [{ apiGroups: [crd.projectcalico.org], resources: [ipamblocks], verbs: [get, list] }]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: { name: test-ipamblocks-reader }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: test-ipamblocks-reader }
subjects: [{ kind: ServiceAccount, name: netledger-node-agent, namespace: kube-system }]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: { name: test-configmaps-reader, namespace: kube-system }
rules: [{ apiGroups: [""], resources: [configmaps], verbs: [list] }]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: { name: test-configmaps-reader, namespace: kube-system }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: Role, name: test-configmaps-reader }
subjects: [{ kind: ServiceAccount, name: netledger-node-agent, namespace: kube-system }]
`;
    expect(await api.kubectl(['apply', '-f', '-'], { input: grant })).toMatchObject({ status: 0 });
    // RBAC reads its bindings through an informer: wait for it to see them.
    await eventually(
      async () => (await api.kubectl(listConfigMaps, { as: 'node-agent' })).status === 0,
      'node-agent can list configmaps in kube-system',
    );
    await eventually(
      async () => (await api.kubectl(listBlocks, { as: 'node-agent' })).status === 0,
      'node-agent can list ipamblocks',
    );
    // The grant is the ServiceAccount's alone: another app, and other verbs, stay refused.
    expect((await api.kubectl(listBlocks, { as: 'ctl' })).stderr).toContain('Forbidden');
    const write = await api.kubectl(['delete', 'ipamblock', '10-0-0-0-30'], { as: 'node-agent' });
    expect(write.stderr).toContain('Forbidden');
    const elsewhere = await api.kubectl(['get', 'configmaps', '-n', 'default'], {
      as: 'node-agent',
    });
    expect(elsewhere.stderr).toContain('Forbidden');
  });

  it('works for @kubernetes/client-node 1.4.0 with the kubeconfig as written', async () => {
    const kc = new KubeConfig();
    kc.loadFromFile(api.kubeconfigPath);
    expect(kc.getCurrentCluster()?.server).toBe(api.url);
    const namespaces = await kc.makeApiClient(CoreV1Api).listNamespace();
    expect(namespaces.items.map((n) => n.metadata?.name)).toEqual(
      expect.arrayContaining(['default', 'kube-system']),
    );
    const crd = kc.makeApiClient(CustomObjectsApi);
    const group = { group: 'crd.projectcalico.org', version: 'v1', plural: 'ipamhandles' };
    await crd.createClusterCustomObject({
      ...group,
      body: {
        apiVersion: 'crd.projectcalico.org/v1',
        kind: 'IPAMHandle',
        metadata: { name: 'k8s-pod-network.abc' },
        spec: { handleID: 'k8s-pod-network.abc', block: { '10.0.0.0/30': 1 } },
      },
    });
    const handle = (await crd.getClusterCustomObject({
      ...group,
      name: 'k8s-pod-network.abc',
    })) as {
      spec: { block: Record<string, number> };
    };
    expect(handle.spec.block).toEqual({ '10.0.0.0/30': 1 });

    // An app's context carries its token: refused with 403, as the API server answers.
    kc.setCurrentContext('netledger-ctl');
    await expect(
      kc.makeApiClient(CustomObjectsApi).listClusterCustomObject(group),
    ).rejects.toMatchObject({ code: 403 });
  });
});

describe('the kube-test-apiserver process', () => {
  const TOOL = join(root, 'tools', 'kube-test-apiserver', 'src', 'main.ts');
  const RUN_TS = join(root, 'scripts', 'run-ts.mjs');
  let dir: string;
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** Starts the tool as scripts do; resolves with its URL line once printed. */
  async function launch(
    args: string[],
    env: NodeJS.ProcessEnv = process.env,
    { waitForUrl = true } = {},
  ) {
    dir = await mkdtemp(join(tmpdir(), 'kube-tool-test-'));
    const child = spawn(process.execPath, [RUN_TS, TOOL, ...args], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env,
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    if (!waitForUrl) return { child, url: undefined, exited, stderr: () => stderr };
    const url = await new Promise<string | undefined>((resolve) => {
      let stdout = '';
      child.stdout.on('data', (c: Buffer) => {
        stdout += c.toString();
        if (stdout.endsWith('\n')) resolve(stdout.trim());
      });
      void exited.then(() => resolve(undefined));
    });
    return { child, url, exited, stderr: () => stderr };
  }

  it('serves at --listen, writes the kubeconfig and tokens, and on SIGTERM leaves nothing', async () => {
    const port = await findFreePort();
    const kubeconfig = join(tmpdir(), `kube-tool-test-${process.pid}-${port}`);
    const tool = await launch([
      '--listen',
      `127.0.0.1:${port}`,
      '--kubeconfig-out',
      kubeconfig,
      '--no-build',
    ]);
    try {
      expect(tool.url, tool.stderr()).toBe(`https://127.0.0.1:${port}`);
      const children = servers(tool.child.pid!);
      expect(children.map((c) => c.name).sort()).toEqual(['etcd', 'kube-apiserver']);
      const dataDir = children
        .flatMap((c) => c.argv)
        .find((a) => a.startsWith('--data-dir='))!
        .slice('--data-dir='.length);
      const tempDir = dirname(dataDir);
      expect(existsSync(tempDir)).toBe(true);

      const tokens = JSON.parse(await readFile(`${kubeconfig}.tokens.json`, 'utf8')) as {
        server: string;
        apps: Record<string, { username: string }>;
      };
      expect(tokens.server).toBe(tool.url);
      expect(Object.keys(tokens.apps)).toEqual([
        'cni-plugin',
        'ctl',
        'kube-controllers',
        'node-agent',
      ]);
      const whoami = await new Promise<string>((resolve) => {
        const k = spawn(process.env.KUBECTL || 'kubectl', [
          '--kubeconfig',
          kubeconfig,
          '--cache-dir',
          join(dir, 'kubectl-cache'),
          '--context',
          'netledger-kube-controllers',
          'auth',
          'whoami',
          '-o',
          'jsonpath={.status.userInfo.username}',
        ]);
        let out = '';
        k.stdout.on('data', (c: Buffer) => (out += c.toString()));
        k.on('close', () => resolve(out));
      });
      expect(whoami).toBe('system:serviceaccount:kube-system:netledger-kube-controllers');

      tool.child.kill('SIGTERM');
      expect(await tool.exited).toBe(0);
      for (const c of children) expect(isRunning(c.pid), c.argv.join(' ')).toBe(false);
      expect(existsSync(tempDir)).toBe(false);
    } finally {
      tool.child.kill('SIGKILL');
      await rm(kubeconfig, { force: true });
      await rm(`${kubeconfig}.tokens.json`, { force: true });
    }
  }, 120_000);

  it('with --node, serves that kubelet through the Node authorizer; with --with-controller-manager, admits pods only once their ServiceAccount exists', async () => {
    const kubeconfig = join(tmpdir(), `kube-tool-test-node-${process.pid}`);
    const tool = await launch([
      '--listen',
      '127.0.0.1:0',
      '--kubeconfig-out',
      kubeconfig,
      '--node',
      'node-1.example',
      '--with-controller-manager',
      '--no-build',
    ]);
    const kubectl = (args: string[], input = '') =>
      new Promise<{ status: number | null; out: string; err: string }>((resolve) => {
        const k = spawn(process.env.KUBECTL || 'kubectl', [
          '--kubeconfig',
          kubeconfig,
          '--cache-dir',
          join(dir, 'kubectl-cache'),
          ...args,
        ]);
        let out = '';
        let err = '';
        k.stdout.on('data', (c: Buffer) => (out += c.toString()));
        k.stderr.on('data', (c: Buffer) => (err += c.toString()));
        k.on('close', (status) => resolve({ status, out, err }));
        k.stdin.end(input);
      });
    try {
      expect(tool.url, tool.stderr()).toMatch(/^https:/);
      const tokens = JSON.parse(await readFile(`${kubeconfig}.tokens.json`, 'utf8')) as {
        nodes: Record<string, { username: string; groups: string[]; context: string }>;
      };
      expect(tokens.nodes['node-1.example']).toMatchObject({
        username: 'system:node:node-1.example',
        groups: ['system:nodes'],
        context: 'system:node:node-1.example',
      });
      const asNode = ['--context', 'system:node:node-1.example'];
      const whoami = await kubectl([
        ...asNode,
        'auth',
        'whoami',
        '-o',
        'jsonpath={.status.userInfo.username}',
      ]);
      expect(whoami.out).toBe('system:node:node-1.example');
      // The Node authorizer: a kubelet registers and updates its Node, and reads no Secret.
      const canI = async (...args: string[]) =>
        (await kubectl([...asNode, 'auth', 'can-i', ...args])).out.trim();
      expect(await canI('create', 'nodes')).toBe('yes');
      expect(await canI('patch', 'nodes/node-1.example', '--subresource=status')).toBe('yes');
      expect(await canI('list', 'secrets', '-A')).toMatch(/^no\b/);
      // ServiceAccount admission is on: no controller has made `default`, so the pod is refused.
      const pod = await kubectl(
        ['create', '-f', '-'],
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'p', namespace: 'default' },
          spec: { containers: [{ name: 'c', image: 'busybox' }] },
        }),
      );
      expect(pod.status).not.toBe(0);
      expect(pod.err).toContain('serviceaccount "default" not found');
    } finally {
      tool.child.kill('SIGTERM');
      await tool.exited;
      await rm(kubeconfig, { force: true });
      await rm(`${kubeconfig}.tokens.json`, { force: true });
    }
  }, 120_000);

  it('stops when its standard input closes, as when its parent dies', async () => {
    const tool = await launch([
      '--listen',
      '127.0.0.1:0',
      '--kubeconfig-out',
      join(tmpdir(), `kube-tool-test-stdin-${process.pid}`),
      '--exit-on-stdin-close',
      '--no-build',
    ]);
    try {
      expect(tool.url, tool.stderr()).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const children = servers(tool.child.pid!);
      expect(children).toHaveLength(2);
      tool.child.stdin.end();
      expect(await tool.exited).toBe(0);
      for (const c of children) expect(isRunning(c.pid)).toBe(false);
      expect(tool.stderr()).toContain('standard input closed: stopping');
    } finally {
      tool.child.kill('SIGKILL');
      await rm(join(tmpdir(), `kube-tool-test-stdin-${process.pid}`), { force: true });
      await rm(join(tmpdir(), `kube-tool-test-stdin-${process.pid}.tokens.json`), { force: true });
    }
  }, 120_000);

  it('when etcd dies while serving, stops kube-apiserver and exits 1 with the log', async () => {
    const kubeconfig = join(tmpdir(), `kube-tool-test-died-${process.pid}`);
    const tool = await launch([
      '--listen',
      '127.0.0.1:0',
      '--kubeconfig-out',
      kubeconfig,
      '--no-build',
    ]);
    try {
      expect(tool.url, tool.stderr()).toMatch(/^https:/);
      const [etcd, apiserver] = servers(tool.child.pid!).sort((a, b) =>
        a.name.localeCompare(b.name),
      );
      process.kill(etcd!.pid, 'SIGKILL');
      expect(await tool.exited).toBe(1);
      expect(tool.stderr()).toContain('died: etcd exited (SIGKILL)');
      expect(isRunning(apiserver!.pid)).toBe(false);
      const tempDir = /temp dir (\S+)/.exec(tool.stderr())![1]!;
      expect(existsSync(tempDir)).toBe(false);
    } finally {
      tool.child.kill('SIGKILL');
      await rm(kubeconfig, { force: true });
      await rm(`${kubeconfig}.tokens.json`, { force: true });
    }
  }, 120_000);

  /** A stand-in kube-apiserver (a shell script) for the start-up failure paths. */
  async function fakeApiserver(script: string): Promise<NodeJS.ProcessEnv> {
    const bin = join(tmpdir(), `fake-kube-apiserver-${process.pid}-${Date.now()}`);
    await writeFile(bin, `#!/bin/sh\n${script}\n`, { mode: 0o755 });
    fakes.push(bin);
    return { ...process.env, KUBE_APISERVER: bin };
  }
  const fakes: string[] = [];
  afterEach(async () => {
    await Promise.all(fakes.splice(0).map((f) => rm(f, { force: true })));
  });

  it('an API server that exits during start: exit 1 with its log, etcd stopped', async () => {
    const env = await fakeApiserver('echo "boom: bad flag" >&2; exit 3');
    const kubeconfig = join(tmpdir(), `kube-tool-test-fail-${process.pid}`);
    const tool = await launch(['--listen', '127.0.0.1:0', '--kubeconfig-out', kubeconfig], env);
    expect(tool.url).toBeUndefined();
    expect(await tool.exited).toBe(1);
    expect(tool.stderr()).toMatch(/kube-apiserver exited during start:\n(.*\n)*boom: bad flag/);
    expect(existsSync(kubeconfig)).toBe(false);
    const tempDir = /temp dir (\S+)/.exec(tool.stderr())![1]!;
    expect(processesMentioning(tempDir)).toEqual([]);
    expect(existsSync(tempDir)).toBe(false);
  });

  it('refuses a --kubeconfig-out it cannot write before starting anything (exit 2)', async () => {
    const env = await fakeApiserver('exit 0');
    const tool = await launch(
      ['--listen', '127.0.0.1:0', '--kubeconfig-out', '/nonexistent/dir/kubeconfig'],
      env,
    );
    expect(await tool.exited).toBe(2);
    expect(tool.stderr()).toMatch(/--kubeconfig-out \/nonexistent\/dir\/kubeconfig: cannot write/);
    expect(tool.stderr()).not.toContain('temp dir');
  });

  it('SIGTERM during start-up stops what was started and removes the temp dir', async () => {
    const env = await fakeApiserver('exec sleep 600');
    const tool = await launch(
      ['--listen', '127.0.0.1:0', '--kubeconfig-out', join(tmpdir(), 'never-written')],
      env,
      { waitForUrl: false },
    );
    try {
      // Wait for the stand-in to be running: etcd is up by then and the tool polls /readyz.
      await eventually(
        async () => childrenOf(tool.child.pid!).some((c) => c.argv[0] === 'sleep'),
        'the stand-in kube-apiserver started',
      );
      const tempDir = /temp dir (\S+)/.exec(tool.stderr())![1]!;
      const started = processesMentioning(tempDir);
      expect(started.map((c) => c.argv[0]!.split('/').pop())).toEqual(['etcd']);
      const standIn = childrenOf(tool.child.pid!).find((c) => c.argv[0] === 'sleep')!;
      tool.child.kill('SIGTERM');
      expect(await tool.exited).toBe(0);
      expect(tool.stderr()).toContain('SIGTERM during start-up: stopped');
      expect(processesMentioning(tempDir)).toEqual([]);
      expect(isRunning(standIn.pid)).toBe(false);
      expect(existsSync(tempDir)).toBe(false);
    } finally {
      tool.child.kill('SIGKILL');
    }
  });

  it('fails at once, saying how to build it, when kube-apiserver is not built', async () => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      XDG_CACHE_HOME: join(tmpdir(), `kube-tool-empty-${process.pid}`),
    };
    delete env.KUBE_APISERVER;
    const tool = await launch(
      ['--listen', '127.0.0.1:0', '--kubeconfig-out', '/nonexistent/k', '--no-build'],
      env,
    );
    expect(tool.url).toBeUndefined();
    expect(await tool.exited).toBe(1);
    expect(tool.stderr()).toMatch(/kube-apiserver v1\.32\.\d+ is not built yet.*--build/s);
  });

  it('the testkit fixture fails with what to install when kube-apiserver cannot be built', async () => {
    dir = await mkdtemp(join(tmpdir(), 'kube-tool-test-'));
    const saved = {
      XDG_CACHE_HOME: process.env.XDG_CACHE_HOME,
      GO: process.env.GO,
      KUBE_APISERVER: process.env.KUBE_APISERVER,
    };
    process.env.XDG_CACHE_HOME = dir;
    process.env.GO = '/nonexistent/go';
    delete process.env.KUBE_APISERVER;
    try {
      await expect(startKubeApiserver({ build: true })).rejects.toThrow(
        /needs Go 1\.24 or newer.*KUBE_APISERVER=/s,
      );
    } finally {
      for (const [key, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
  });
});
