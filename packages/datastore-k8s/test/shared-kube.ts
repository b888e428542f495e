import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Datastore } from '@netledger/ipam-core';
import { startKubeApiserver } from '@netledger/testkit';
import type { KubeApiserverFixture } from '@netledger/testkit';
import { createK8sDatastore } from '../src/create-k8s-datastore.js';
import type { K8sDatastoreOptions } from '../src/k8s-datastore-options.js';
import { createKubeHttp, loadKubeConfig } from '../src/kube-http.js';
import { createTokenBucket } from '../src/token-bucket.js';

/** The package's CRD manifests (Calico's, unchanged). */
export const CRD_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'crds');

const CRDS = [
  'ipamblocks',
  'blockaffinities',
  'ipamhandles',
  'ipamconfigs',
  'ippools',
  'ipreservations',
  'clusterinformations',
] as const;

/** One real API server for a whole test file, with Calico's CRDs applied and Established. */
export interface SharedKube {
  get(): Promise<KubeApiserverFixture>;
  /** Deletes every Calico object and every Node. */
  wipe(): Promise<void>;
  /** A datastore as the admin (or with other options). */
  open(options?: Omit<K8sDatastoreOptions, 'kubeconfig'>): Promise<Datastore>;
  stop(): Promise<void>;
}

async function must(api: KubeApiserverFixture, args: string[]): Promise<string> {
  const r = await api.kubectl(args);
  if (r.status !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** Starts the API server on first use; the file stops it in `afterAll`. */
export function createSharedKube(): SharedKube {
  let started: Promise<KubeApiserverFixture> | undefined;
  const get = (): Promise<KubeApiserverFixture> =>
    (started ??= (async () => {
      const api = await startKubeApiserver();
      await must(api, ['apply', '-f', CRD_DIR]);
      await must(api, [
        'wait',
        '--for',
        'condition=Established',
        '--timeout=60s',
        ...CRDS.map((c) => `crd/${c}.crd.projectcalico.org`),
      ]);
      return api;
    })());
  return {
    get,
    async wipe() {
      const api = await get();
      const http = createKubeHttp(loadKubeConfig({ kubeconfig: api.kubeconfigPath }), {
        requestTimeoutMs: 30_000,
        limiter: createTokenBucket({ qps: 1000, burst: 1000 }),
      });
      try {
        const paths = [...CRDS.map((c) => `/apis/crd.projectcalico.org/v1/${c}`), '/api/v1/nodes'];
        await Promise.all(
          paths.map(async (path) => {
            const r = await http.request({ method: 'DELETE', path });
            if (r.status !== 200) throw new Error(`wipe ${path}: HTTP ${r.status}`);
          }),
        );
      } finally {
        http.close();
      }
    },
    async open(options = {}) {
      const api = await get();
      return createK8sDatastore({ kubeconfig: api.kubeconfigPath, ...options });
    },
    async stop() {
      await (await started)?.stop();
    },
  };
}

/**
 * A suite target: each `open()` wipes the store and returns a new admin datastore. The suites
 * test semantics, not client throttling: their stores get a limit (1000/s) that never binds.
 */
export function createWipedKubeTarget(kube: SharedKube): { open(): Promise<Datastore> } {
  return {
    async open() {
      await kube.wipe();
      return kube.open({ qps: 1000, burst: 1000 });
    },
  };
}
