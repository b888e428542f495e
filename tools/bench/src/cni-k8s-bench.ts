// netledger-ipam on `datastore_type: kubernetes` through the real kube-apiserver
// (tools/kube-test-apiserver, Calico's CRDs, the plugin's RBAC and ServiceAccount token), beside
// the same plugin on etcd: ADD and DEL latency through the exec path (the static client in bin/
// and its Node.js fallback, as a runtime runs it with no node agent), interleaved so both see the
// same load, and the API requests one ADD costs.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createEtcdDatastore } from '@netledger/datastore-etcd';
import { createIpamClient } from '@netledger/ipam-core';
import { createTempDir, startEtcd, startKubeApiserver } from '@netledger/testkit';
import type { KubeApiserverFixture } from '@netledger/testkit';
import type { BenchResult } from './bench-report.js';
import { percentile, writeBenchResults } from './bench-report.js';
import {
  cniEnv as cniEnvOf,
  mustSucceed as must,
  timedRun,
  workspaceRoot,
} from './bench-process.js';

const ROOT = workspaceRoot();
const PLUGIN = join(ROOT, 'bin', 'netledger-ipam');
const ROUNDS = 30;
const WARM_UP = 3;
const NODE = 'bench-node';
const NS = 'bench';

const exec = (env: Record<string, string>, stdin: string) => timedRun({ file: PLUGIN, env, stdin });

const cniEnv = (command: string, id: string, pod?: string): Record<string, string> =>
  cniEnvOf({
    command,
    id,
    cniPath: join(ROOT, 'bin'),
    ...(pod !== undefined && {
      cniArgs: `IgnoreUnknown=1;K8S_POD_NAMESPACE=${NS};K8S_POD_NAME=${pod}`,
    }),
  });

async function kubectl(api: KubeApiserverFixture, args: string[], input?: string): Promise<string> {
  const r = await api.kubectl(args, input === undefined ? {} : { input });
  if (r.status !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** apiserver_request_total over what the plugin asks for (Calico's CRDs, nodes, pods, namespaces). */
async function pluginRequests(api: KubeApiserverFixture): Promise<number> {
  let n = 0;
  for (const line of (await kubectl(api, ['get', '--raw', '/metrics'])).split('\n')) {
    if (!line.startsWith('apiserver_request_total{')) continue;
    const group = /group="([^"]*)"/.exec(line)?.[1] ?? '';
    const resource = /resource="([^"]*)"/.exec(line)?.[1] ?? '';
    const ours =
      group === 'crd.projectcalico.org' ||
      (group === '' && ['nodes', 'pods', 'namespaces'].includes(resource));
    if (ours) n += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return n;
}

/** The API server with Calico's CRDs, the plugin's RBAC, a pool, the node, and the pods. */
async function seedKubernetes(api: KubeApiserverFixture, dir: string): Promise<string> {
  await kubectl(api, ['apply', '-f', join(ROOT, 'packages', 'datastore-k8s', 'crds')]);
  await kubectl(api, ['apply', '-f', join(ROOT, 'apps', 'cni-plugin', 'deploy', 'rbac.yaml')]);
  await kubectl(api, ['wait', '--for=condition=Established', 'crd', '--all', '--timeout=60s']);
  const pods = Array.from({ length: ROUNDS + WARM_UP + 1 }, (_, i) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `pod-${i}`,
      namespace: NS,
      annotations: { 'cni.projectcalico.org/ipv4pools': '["bench"]' },
    },
    spec: { containers: [{ name: 'c', image: 'registry.invalid/none' }] },
  }));
  const items = [
    { apiVersion: 'v1', kind: 'Node', metadata: { name: NODE } },
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS, labels: { team: 'bench' } } },
    {
      apiVersion: 'crd.projectcalico.org/v1',
      kind: 'IPPool',
      metadata: { name: 'bench' },
      spec: { cidr: '10.92.0.0/16', blockSize: 26, allowedUses: ['Workload'] },
    },
    ...pods,
  ];
  await kubectl(
    api,
    ['apply', '-f', '-'],
    JSON.stringify({ apiVersion: 'v1', kind: 'List', items }),
  );
  // The plugin authenticates as its ServiceAccount, with deploy/rbac.yaml's rights only.
  const kubeconfig = join(dir, 'cni-plugin.kubeconfig');
  writeFileSync(
    kubeconfig,
    readFileSync(api.kubeconfigPath, 'utf8').replace(
      /^current-context: .*$/m,
      `current-context: ${JSON.stringify(api.contexts['cni-plugin'])}`,
    ),
  );
  return kubeconfig;
}

const p = (xs: number[], q: number): number =>
  percentile(
    [...xs].sort((a, b) => a - b),
    q,
  );

async function main(): Promise<void> {
  if (!existsSync(PLUGIN)) throw new Error(`${PLUGIN} is missing: run pnpm build first`);
  const dir = await createTempDir('netledger-cni-k8s-bench-');
  const etcd = await startEtcd();
  // Builds kube-apiserver first if it is not cached (minutes, once; tools/kube-test-apiserver).
  const api = await startKubeApiserver({ build: true, startTimeoutMs: 600_000 });
  const results: BenchResult[] = [];
  try {
    const etcdDs = createEtcdDatastore({ endpoints: etcd.endpoints });
    const seed = createIpamClient({ datastore: etcdDs });
    await seed.pools.create({ metadata: { name: 'bench' }, spec: { cidr: '10.93.0.0/16' } });
    await seed.nodes.create({ metadata: { name: NODE } });
    await etcdDs.close();
    const kubeconfig = await seedKubernetes(api, dir.path);

    const ipam = {
      type: 'netledger-ipam',
      nodename: NODE,
      ipam_lock_file: join(dir.path, 'ipam.lock'),
      log_level: 'error',
    };
    const etcdConf = JSON.stringify({
      cniVersion: '1.0.0',
      name: 'bench',
      ipam: { ...ipam, datastore_type: 'etcdv3', etcd_endpoints: etcd.endpoints.join(',') },
    });
    const k8sConf = JSON.stringify({
      cniVersion: '1.0.0',
      name: 'bench',
      datastore_type: 'kubernetes',
      kubernetes: { kubeconfig },
      ipam,
    });

    const t = {
      etcdAdd: [] as number[],
      etcdDel: [] as number[],
      podAdd: [] as number[],
      podDel: [] as number[],
      bareAdd: [] as number[],
      bareDel: [] as number[],
    };
    // Interleaved: etcd, a Kubernetes pod (pod and namespace read, pool by annotation), and the
    // kubernetes store without pod arguments (IPAM requests only).
    for (let i = -WARM_UP; i < ROUNDS; i++) {
      const id = `r${i + WARM_UP}`;
      const pod = `pod-${i + WARM_UP}`;
      const etcdAdd = await must('etcd ADD', exec(cniEnv('ADD', `e${id}`, pod), etcdConf));
      const podAdd = await must('k8s pod ADD', exec(cniEnv('ADD', `k${id}`, pod), k8sConf));
      const bareAdd = await must('k8s ADD', exec(cniEnv('ADD', `b${id}`), k8sConf));
      const etcdDel = await must('etcd DEL', exec(cniEnv('DEL', `e${id}`, pod), etcdConf));
      const podDel = await must('k8s pod DEL', exec(cniEnv('DEL', `k${id}`, pod), k8sConf));
      const bareDel = await must('k8s DEL', exec(cniEnv('DEL', `b${id}`), k8sConf));
      if (i < 0) continue;
      t.etcdAdd.push(etcdAdd);
      t.podAdd.push(podAdd);
      t.bareAdd.push(bareAdd);
      t.etcdDel.push(etcdDel);
      t.podDel.push(podDel);
      t.bareDel.push(bareDel);
    }
    const before = await pluginRequests(api);
    const last = `pod-${ROUNDS + WARM_UP}`;
    await must('k8s pod ADD', exec(cniEnv('ADD', 'count', last), k8sConf));
    const addRequests = (await pluginRequests(api)) - before;
    const beforeDel = await pluginRequests(api);
    await must('k8s pod DEL', exec(cniEnv('DEL', 'count', last), k8sConf));
    const delRequests = (await pluginRequests(api)) - beforeDel;

    const ms = (name: string, value: number): BenchResult => ({
      name,
      value,
      unit: 'ms',
      better: 'lower',
    });
    results.push(
      ms('netledger-ipam ADD p50 (etcd)', p(t.etcdAdd, 50)),
      ms('netledger-ipam ADD p50 (kubernetes, pod with annotations)', p(t.podAdd, 50)),
      ms('netledger-ipam ADD p99 (kubernetes, pod with annotations)', p(t.podAdd, 99)),
      ms('netledger-ipam ADD p50 (kubernetes, no pod arguments)', p(t.bareAdd, 50)),
      {
        name: 'ADD p50 ratio kubernetes pod / etcd',
        value: p(t.podAdd, 50) / p(t.etcdAdd, 50),
        unit: 'x',
        better: 'lower',
      },
      ms('netledger-ipam DEL p50 (etcd)', p(t.etcdDel, 50)),
      ms('netledger-ipam DEL p50 (kubernetes, pod)', p(t.podDel, 50)),
      ms('netledger-ipam DEL p50 (kubernetes, no pod arguments)', p(t.bareDel, 50)),
      {
        name: 'API requests per kubernetes pod ADD',
        value: addRequests,
        unit: 'requests',
        better: 'lower',
      },
      {
        name: 'API requests per kubernetes pod DEL',
        value: delRequests,
        unit: 'requests',
        better: 'lower',
      },
    );
  } finally {
    await api.stop();
    await etcd.stop();
    await dir.remove().catch(() => undefined);
  }
  writeBenchResults('cni-kubernetes', {
    title: 'CNI IPAM plugin on Kubernetes (exec path, real kube-apiserver)',
    command: 'pnpm build && pnpm bench --filter=@netledger/bench',
    notes: `Each figure execs bin/netledger-ipam (the static client a runtime would run, serving through its Node.js fallback: no node agent) with CNI_* env and the config on stdin. ${ROUNDS} rounds (after ${WARM_UP} warm-up rounds), each an ADD on etcd, an ADD of a Kubernetes pod on the kubernetes datastore (the pod and its namespace read, the pool chosen by the pod's annotation), and an ADD on the kubernetes datastore without pod arguments, then their DELs, interleaved so all see the same load. The plugin authenticates with the cni-plugin ServiceAccount's token (apps/cni-plugin/deploy/rbac.yaml) over TLS to kube-apiserver v1.32 on Debian's etcd 3.4 (tools/kube-test-apiserver), a fresh connection per process. API requests: the API server's apiserver_request_total over Calico's CRDs, nodes, pods and namespaces for one more pod's ADD and DEL.`,
    results,
  });
}

await main();
