// The Datastore port on the Kubernetes API (Calico's KDD), on whichever Calico API group the server
// has (crd.projectcalico.org/v1 or projectcalico.org/v3: the option, else Calico's discovery, before
// the first request). Revisions are resourceVersions; every update is a PUT carrying the revision
// read (the server's compare-and-swap, 409 on a stale one) that keeps the IPAM object's metadata;
// blocks, affinities and handles are deleted as Calico does: `deleted: true` by a CAS write (the
// linearisation point), then a delete with a UID precondition; reads filter soft-deleted rows and
// a get that finds one completes its delete. Each operation is its own module (k8s-reads.ts,
// k8s-writes.ts, apply-kv.ts, delete-kv.ts, watch-kvs.ts).
import type { Datastore } from '@netledger/ipam-core';
import { applyKv } from './apply-kv.js';
import type { CalicoApiGroup } from './calico-api-group.js';
import { crdGroup } from './calico-api-group.js';
import { deferDatastore } from './deferred-datastore.js';
import { deleteKv } from './delete-kv.js';
import { discoverCalicoApiGroup } from './discover-calico-api-group.js';
import type { K8sDatastoreOptions } from './k8s-datastore-options.js';
import { resolveK8sOptions } from './k8s-datastore-options.js';
import { getKv, listKvs, listManyKvs } from './k8s-reads.js';
import { createKv, updateKv } from './k8s-writes.js';
import type { KubeHttp } from './kube-http.js';
import { createKubeCalls } from './kube-calls.js';
import { loadKubeConfig } from './kube-config.js';
import { createKubeHttp } from './kube-http.js';
import { registerObjectReader } from './kube-object-reader.js';
import { upgradeAffinityLabels } from './upgrade-affinity-labels.js';
import type { KubeObjects } from './kube-objects.js';
import { createKubeObjects } from './kube-objects.js';
import { createTokenBucket } from './token-bucket.js';
import { DEFAULT_RETRY_POLICY } from './request-retry.js';
import { watchKvs } from './watch-kvs.js';

/**
 * Opens a Datastore on the Kubernetes API server named by a kubeconfig (or, without one, on the
 * pod's own service account), on the Calico API group of the `calicoApiGroup` option, else the one
 * the server has (Calico's discovery: {@link discoverCalicoApiGroup}). Nothing is sent until the
 * first call, which discovers the group first; a failed discovery fails that call and is tried
 * again by the next. A kubeconfig that cannot be read or a bad option throws `InvalidArgument`
 * here. Errors name the API server and the object.
 */
export function createK8sDatastore(options: K8sDatastoreOptions = {}): Datastore {
  const o = resolveK8sOptions(options);
  const kc = loadKubeConfig(o);
  const http = createKubeHttp(kc, {
    requestTimeoutMs: o.requestTimeoutMs,
    limiter: createTokenBucket({ qps: o.qps, burst: o.burst }),
    retry: { ...DEFAULT_RETRY_POLICY, maxRetries: o.maxRetries, maxWaitMs: o.maxRetryWaitMs },
    ...(o.maxSockets !== undefined && { maxSockets: o.maxSockets }),
  });
  const calls = createKubeCalls(http);
  let opened: Promise<{ group: CalicoApiGroup; datastore: Datastore }> | undefined;
  const open = (): Promise<{ group: CalicoApiGroup; datastore: Datastore }> =>
    (opened ??= (async () => {
      const group = o.calicoApiGroup ?? (await discoverCalicoApiGroup(calls));
      return {
        group,
        datastore: createDatastoreOnGroup(http, createKubeObjects(calls, crdGroup(group))),
      };
    })().catch((e: unknown) => {
      opened = undefined;
      throw e;
    }));
  const datastore = deferDatastore({
    open: async () => (await open()).datastore,
    async close() {
      http.close();
    },
  });
  registerObjectReader(datastore, { calls, calicoApiGroup: async () => (await open()).group });
  return datastore;
}

/** The Datastore over an HTTP client, on the objects of one Calico API group. */
function createDatastoreOnGroup(http: KubeHttp, objects: KubeObjects): Datastore {
  return {
    create: (kv) => createKv(objects, kv),
    update: (kv) => updateKv(objects, kv),
    apply: (kv) => applyKv(objects, kv),
    delete: (key, options) => deleteKv(objects, key, options),
    get: (key) => getKv(objects, key),
    list: (options) => listKvs(objects, options),
    listMany: (many) => listManyKvs(objects, many),
    watch: (options, watchOptions) => watchKvs(http, objects, { options, watchOptions }),
    upgradeAffinityLabels: (host) => upgradeAffinityLabels(objects, host),
    async close() {
      http.close();
    },
  };
}
