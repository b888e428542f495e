import { KubeTestApiserverError } from './kube-test-apiserver-error.js';
import { kubeRequest } from './kube-http.js';
import type { KubeEndpoint } from './kube-http.js';

/** The namespaces tests rely on; the API server's own controller makes them, we make sure. */
const SYSTEM_NAMESPACES = ['default', 'kube-system'] as const;

/**
 * Creates the namespaces that a controller-less API server may not have made yet (its own system
 * namespaces controller usually has, by the time /readyz is ok). 409 means someone else did;
 * any other refusal throws START_FAILED.
 */
export async function ensureSystemNamespaces(endpoint: KubeEndpoint): Promise<void> {
  for (const name of SYSTEM_NAMESPACES) {
    const got = await kubeRequest(endpoint, { method: 'GET', path: `/api/v1/namespaces/${name}` });
    if (got.status === 200) continue;
    const made = await kubeRequest(endpoint, {
      method: 'POST',
      path: '/api/v1/namespaces',
      json: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
    });
    if (made.status !== 201 && made.status !== 409) {
      throw new KubeTestApiserverError(
        'START_FAILED',
        `cannot create namespace ${name}: ${made.status} ${made.body}`,
      );
    }
  }
}
