// Requests to the API server with their failures mapped to IpamErrors naming the server, the request
// and the object: the layer under every read and write, and under the group discovery that comes
// before them.
import type { DatastoreKey } from '@netledger/ipam-core';
import { IpamError } from '@netledger/ipam-core';
import { describeKey } from '@netledger/ipam-core/adapter';
import type { KubeHttp, KubeRequest, KubeResponse } from './kube-http.js';
import { kubeStatusError, kubeTransportError } from './map-kube-error.js';

/** Requests over one HTTP client; see the file comment. */
export interface KubeCalls {
  /** `https://host:port` of the API server. */
  readonly server: string;
  /**
   * Sends `r`; resolves with any answer the server gives (the caller judges its status), throws
   * `Unavailable` naming `object` when there is no answer.
   */
  readonly call: (r: KubeRequest, object: string, key?: DatastoreKey) => Promise<KubeResponse>;
  /** Throws the error a failed answer maps to, naming the request and the object. */
  readonly fail: (
    res: KubeResponse,
    at: { readonly method: string; readonly object: string; readonly key?: DatastoreKey },
  ) => never;
}

/** The requests over `http`. */
export function createKubeCalls(http: KubeHttp): KubeCalls {
  const server = http.server;
  return {
    server,
    call: async (r, object, key) => {
      try {
        return await http.request(r);
      } catch (e) {
        if (e instanceof IpamError) throw e;
        throw kubeTransportError(e, {
          server,
          method: r.method,
          object,
          write: r.method !== 'GET',
          ...(key && { identifier: describeKey(key) }),
        });
      }
    },
    fail: (res, at) => {
      throw kubeStatusError(res.status, res.body, {
        server,
        method: at.method,
        object: at.object,
        ...(at.key && { identifier: describeKey(at.key) }),
        ...(res.retried && { retried: res.retried }),
      });
    },
  };
}
