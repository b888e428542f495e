import { dirname, join } from 'node:path';
import { beforeAll } from 'vitest';
import { fileURLToPath } from 'node:url';
import type { Datastore } from '@netledger/ipam-core';
import { startKubeApiserver } from '@netledger/testkit';
import type { KubeApiserverFixture } from '@netledger/testkit';
import type { CalicoApiGroup } from '../src/calico-api-group.js';
import { crdGroup } from '../src/calico-api-group.js';
import { createK8sDatastore } from '../src/create-k8s-datastore.js';
import type { K8sDatastoreOptions } from '../src/k8s-datastore-options.js';
import { loadKubeConfig } from '../src/kube-config.js';
import type { KubeHttp } from '../src/kube-http.js';
import { createKubeHttp } from '../src/kube-http.js';
import { createTokenBucket } from '../src/token-bucket.js';

/** The package's CRD manifests (Calico's, unchanged): v1 at the top, v3 in its subfolder. */
const CRD_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', 'crds');
const CRD_DIRS: Readonly<Record<CalicoApiGroup, string>> = {
  'crd.projectcalico.org/v1': CRD_ROOT,
  'projectcalico.org/v3': join(CRD_ROOT, 'projectcalico.org'),
};

/** The CRDs' plurals in a group. */
const pluralsOf = (group: CalicoApiGroup): string[] =>
  Object.values(crdGroup(group).names).map((n) => n.plural);

/** One real API server for a whole test file (or describe), with one group's CRDs Established. */
export interface SharedKube {
  /** The Calico API group whose CRDs the server has (and only that group). */
  readonly group: CalicoApiGroup;
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

/** The Calico groups in the server's discovery (`GET /apis`). */
async function calicoGroupsServed(http: KubeHttp): Promise<string[]> {
  const res = await http.request({ method: 'GET', path: '/apis' });
  const groups = (res.body as { groups?: { name: string }[] } | undefined)?.groups ?? [];
  return groups.map((g) => g.name).filter((g) => g.endsWith('projectcalico.org'));
}

/**
 * Waits until discovery lists exactly `groupName` of the Calico groups: the API server adds a CRD's
 * group to discovery after the CRD is Established, and the datastore's detection reads discovery.
 */
async function waitUntilServed(api: KubeApiserverFixture, groupName: string): Promise<void> {
  const http = createKubeHttp(loadKubeConfig({ kubeconfig: api.kubeconfigPath }), {
    requestTimeoutMs: 30_000,
    limiter: createTokenBucket({ qps: 1000, burst: 1000 }),
  });
  try {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const served = await calicoGroupsServed(http);
      if (served.join() === groupName) return;
      if (Date.now() > deadline) {
        throw new Error(
          `discovery lists ${served.join(', ') || 'no Calico group'}, not ${groupName}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    http.close();
  }
}

/**
 * Starts the API server in the `beforeAll` of the file or describe block that calls it (never inside
 * a test, whose time limit is for the test: a start on a busy machine can take tens of seconds), with
 * the CRDs of `group` (default crd.projectcalico.org/v1) only, and checks that the server serves that
 * Calico group and not the other; the caller stops it in `afterAll`.
 */
export function createSharedKube(options: { readonly group?: CalicoApiGroup } = {}): SharedKube {
  const group = options.group ?? 'crd.projectcalico.org/v1';
  const groupName = group.split('/')[0]!;
  const plurals = pluralsOf(group);
  let started: Promise<KubeApiserverFixture> | undefined;
  beforeAll(async () => {
    await get();
  }, 180_000);
  const get = (): Promise<KubeApiserverFixture> =>
    (started ??= (async () => {
      const api = await startKubeApiserver();
      await must(api, ['apply', '-f', CRD_DIRS[group]]);
      await must(api, [
        'wait',
        '--for',
        'condition=Established',
        '--timeout=60s',
        ...plurals.map((c) => `crd/${c}.${groupName}`),
      ]);
      await waitUntilServed(api, groupName);
      return api;
    })());
  return {
    group,
    get,
    async wipe() {
      const api = await get();
      const http = createKubeHttp(loadKubeConfig({ kubeconfig: api.kubeconfigPath }), {
        requestTimeoutMs: 30_000,
        limiter: createTokenBucket({ qps: 1000, burst: 1000 }),
      });
      try {
        const paths = [...plurals.map((c) => `/apis/${group}/${c}`), '/api/v1/nodes'];
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
