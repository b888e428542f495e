// Watches on the Kubernetes datastore: a watch of one kind's collection, decoded and filtered as
// a list is (IPAM hosts: none exist, so a watch that reports nothing).
import type { ListOptions, WatchOptions, WatchStream } from '@netledger/ipam-core';
import { CRD_KINDS, isCrdKind, listLabelSelector, matchesList } from './crd-kinds.js';
import { createK8sWatch } from './k8s-watch.js';
import type { KubeHttp } from './kube-http.js';
import type { KubeObjects } from './kube-objects.js';

/** A watch of what `options` selects, from `watchOptions.revision` (else from now). */
export function watchKvs(
  http: KubeHttp,
  objects: KubeObjects,
  watch: { readonly options: ListOptions; readonly watchOptions?: WatchOptions | undefined },
): WatchStream {
  const { collectionOf, resourceOf, listRaw, toKv } = objects;
  const { options, watchOptions } = watch;
  const kind = options.kind;
  if (kind === 'IPAMHost') {
    return createK8sWatch(
      {
        http,
        path: collectionOf('IPAMConfig'),
        resource: 'ipamhosts',
        softDelete: false,
        decode: () => undefined,
        currentRevision: async () => (await listRaw('IPAMConfig', { limit: 1 })).revision,
      },
      watchOptions,
    );
  }
  const selector = listLabelSelector(options);
  return createK8sWatch(
    {
      http,
      path: collectionOf(kind),
      resource: resourceOf(kind),
      ...(selector !== undefined && { labelSelector: selector }),
      softDelete: isCrdKind(kind) && CRD_KINDS[kind].softDelete,
      decode: (object) => {
        const kv = toKv(kind, object);
        return kv && matchesList(kv.key, options) ? kv : undefined;
      },
      currentRevision: async () => (await listRaw(kind, { limit: 1 })).revision,
    },
    watchOptions,
  );
}
