// Test helpers (not exported): the IPAM stores the integration tests run the controllers on, as
// configurations for @netledger/datastore-config's opener (the way the app opens stores).
import { homedir } from 'node:os';
import { join } from 'node:path';
import { createDatastoreOpener } from '@netledger/datastore-config';
import type { DatastoreConfig } from '@netledger/datastore-config';
import { loadEtcdGrpc } from '@netledger/datastore-config/etcd-grpc';
import type { Datastore } from '@netledger/ipam-core';
import { createTempDir, startEtcd } from '@netledger/testkit';
import type { KubeApiserverFixture } from '@netledger/testkit';

/** A store a controller is tested on: what to start and stop around it. */
export interface StoreTarget {
  readonly name: 'etcd' | 'file' | 'kubernetes';
  setUp(): Promise<{ config: DatastoreConfig; tearDown: () => Promise<void> }>;
}

const CRDS = join(import.meta.dirname, '..', '..', 'datastore-k8s', 'crds');
const IPAM_CRDS = [
  'ipamblocks',
  'blockaffinities',
  'ipamhandles',
  'ippools',
  'ipreservations',
  'ipamconfigs',
  'clusterinformations',
]
  .map((r) => `${r}.crd.projectcalico.org`)
  .join(',');

/**
 * etcd, the file store, and the Kubernetes store on Calico's CRDs on the test API server
 * (applied once; every IPAM object is deleted after each test).
 */
export function storeTargets(api: () => KubeApiserverFixture): StoreTarget[] {
  let crdsApplied = false;
  return [
    {
      name: 'etcd',
      async setUp() {
        const etcd = await startEtcd();
        return {
          config: { type: 'etcdv3', endpoints: etcd.endpoints.join(',') },
          tearDown: () => etcd.stop(),
        };
      },
    },
    {
      name: 'file',
      async setUp() {
        const dir = await createTempDir('kc-file-');
        return {
          config: { type: 'file', path: join(dir.path, 'store.json') },
          tearDown: () => dir.remove(),
        };
      },
    },
    {
      name: 'kubernetes',
      async setUp() {
        if (!crdsApplied) {
          const r = await api().kubectl(['apply', '-f', CRDS]);
          if (r.status !== 0) throw new Error(`kubectl apply: ${r.stderr}`);
          crdsApplied = true;
        }
        return {
          config: { type: 'kubernetes', kubeconfig: api().kubeconfigPath },
          tearDown: async () => {
            const r = await api().kubectl(['delete', '--all', '--wait=false', IPAM_CRDS]);
            if (r.status !== 0) throw new Error(`kubectl delete: ${r.stderr}`);
          },
        };
      },
    },
  ];
}

const opener = createDatastoreOpener({
  user: () => ({ uid: process.getuid?.(), home: homedir() }),
  etcd: { transport: 'http', loadGrpc: loadEtcdGrpc },
});

/** Sets a target up and opens it; `stop` closes the store and tears the target down. */
export async function openStore(
  target: StoreTarget,
): Promise<{ datastore: Datastore; stop: () => Promise<void> }> {
  const { config, tearDown } = await target.setUp();
  const datastore = await opener.open(config);
  return { datastore, stop: async () => (await datastore.close(), await tearDown()) };
}
