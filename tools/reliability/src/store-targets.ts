import { join } from 'node:path';
import type { DatastoreConfig } from '@netledger/datastore-config';
import { createTempDir, startEtcd, startKubeApiserver } from '@netledger/testkit';
import type { EtcdFixture, KubeApiserverFixture } from '@netledger/testkit';
import { readEtcdRaw, readFileStoreRaw, readKubeRaw } from './audit/read-raw-store.js';
import type { RawIpam } from './audit/raw-ipam.js';
import { CRD_DIR } from './workspace.js';

/** A store under test, started for one test file. */
export interface StoreUnderTest {
  readonly name: 'file' | 'etcd' | 'kubernetes';
  /** The library's config. */
  readonly store: DatastoreConfig;
  /** The store settings of a plugin netconf's `ipam` section. */
  readonly netconfIpam: Readonly<Record<string, unknown>>;
  /** netledgerctl's environment for the store. */
  readonly ctlEnv: Readonly<Record<string, string>>;
  /** A directory for lock files and reports, removed with the store. */
  readonly dir: string;
  /** The store's IPAM objects, read directly (not through a netledger client). */
  readRaw(): Promise<RawIpam>;
  /** Makes what the plugin reads before an ADD of these pods (Kubernetes: the namespace and pods). */
  preparePods(namespace: string, pods: readonly string[]): Promise<void>;
  stop(): Promise<void>;
}

/** The file store in a temp dir. */
export async function startFileStore(): Promise<StoreUnderTest> {
  const tmp = await createTempDir('netledger-rel-file-');
  const path = join(tmp.path, 'store.json');
  return {
    name: 'file',
    store: { type: 'file', path },
    netconfIpam: { datastore_path: path },
    ctlEnv: { DATASTORE_TYPE: 'file', NETLEDGER_DATASTORE_PATH: path },
    dir: tmp.path,
    readRaw: () => readFileStoreRaw(path),
    preparePods: async () => {},
    stop: () => tmp.remove(),
  };
}

/** etcd (one member, or `members` on loopback) with a temp dir beside it. */
export async function startEtcdStore(
  members = 1,
): Promise<StoreUnderTest & { readonly etcd: EtcdFixture }> {
  const tmp = await createTempDir('netledger-rel-etcd-');
  const etcd = await startEtcd({ members });
  const endpoints = etcd.endpoints.join(',');
  return {
    name: 'etcd',
    etcd,
    store: { type: 'etcdv3', endpoints },
    netconfIpam: { datastore_type: 'etcdv3', etcd_endpoints: endpoints },
    ctlEnv: { DATASTORE_TYPE: 'etcdv3', ETCD_ENDPOINTS: endpoints },
    dir: tmp.path,
    readRaw: async () => {
      const up = etcd.members.findIndex((m) => m.running);
      return readEtcdRaw(etcd.endpoints[up]!);
    },
    preparePods: async () => {},
    stop: async () => {
      await etcd.stop();
      await tmp.remove();
    },
  };
}

const CRDS = [
  'ipamblocks',
  'blockaffinities',
  'ipamhandles',
  'ipamconfigs',
  'ippools',
  'ipreservations',
  'clusterinformations',
];

async function kubectlOk(
  api: KubeApiserverFixture,
  args: string[],
  input?: string,
): Promise<string> {
  const r = await api.kubectl(args, input === undefined ? {} : { input });
  if (r.status !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** Applies Calico's CRDs to `api` and waits until they are Established. */
async function applyCalicoCrds(api: KubeApiserverFixture): Promise<void> {
  await kubectlOk(api, ['apply', '-f', CRD_DIR]);
  await kubectlOk(api, [
    'wait',
    '--for',
    'condition=Established',
    '--timeout=60s',
    ...CRDS.map((c) => `crd/${c}.crd.projectcalico.org`),
  ]);
}

/** The Kubernetes store: the real kube-apiserver with Calico's CRDs (admin credentials). */
export async function startKubeStore(): Promise<
  StoreUnderTest & { readonly api: KubeApiserverFixture }
> {
  const tmp = await createTempDir('netledger-rel-kube-');
  const api = await startKubeApiserver();
  try {
    await applyCalicoCrds(api);
  } catch (e) {
    await api.stop();
    await tmp.remove();
    throw e;
  }
  return kubeStoreOn(api, api.kubeconfigPath, tmp);
}

/** A {@link StoreUnderTest} on a running API server, reached through `kubeconfig`. */
export function kubeStoreOn(
  api: KubeApiserverFixture,
  kubeconfig: string,
  tmp: { path: string; remove: () => Promise<void> },
): StoreUnderTest & { readonly api: KubeApiserverFixture } {
  return {
    name: 'kubernetes',
    api,
    store: { type: 'kubernetes', kubeconfig },
    netconfIpam: { datastore_type: 'kubernetes', kubernetes: { kubeconfig } },
    ctlEnv: { DATASTORE_TYPE: 'kubernetes', KUBECONFIG: kubeconfig },
    dir: tmp.path,
    readRaw: () => readKubeRaw((args) => api.kubectl(args)),
    preparePods: async (namespace, pods) => {
      const items = [
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } },
        ...pods.map((name) => ({
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name, namespace },
          spec: { containers: [{ name: 'c', image: 'registry.invalid/none' }] },
        })),
      ];
      await kubectlOk(
        api,
        ['apply', '-f', '-'],
        JSON.stringify({ apiVersion: 'v1', kind: 'List', items }),
      );
    },
    stop: async () => {
      await api.stop();
      await tmp.remove();
    },
  };
}
