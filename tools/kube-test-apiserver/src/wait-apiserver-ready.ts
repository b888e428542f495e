import { setTimeout as sleep } from 'node:timers/promises';
import { KubeTestApiserverError } from './kube-test-apiserver-error.js';
import { kubeRequest } from './kube-http.js';
import type { KubeEndpoint } from './kube-http.js';
import type { ManagedProcess } from './managed-process.js';

/**
 * Polls `/readyz` every 100 ms until it answers `ok`. Throws START_FAILED (with the log's tail)
 * if the API server exits meanwhile or `deadline` passes, and the signal's reason once aborted.
 */
export async function waitApiserverReady(
  endpoint: KubeEndpoint,
  apiserver: ManagedProcess,
  until: { deadline: number; signal?: AbortSignal | undefined },
): Promise<void> {
  for (;;) {
    until.signal?.throwIfAborted();
    if (apiserver.hasExited()) {
      throw new KubeTestApiserverError(
        'START_FAILED',
        `kube-apiserver exited during start:\n${apiserver.logTail()}`,
      );
    }
    const r = await kubeRequest(endpoint, { method: 'GET', path: '/readyz', timeoutMs: 1000 });
    if (r.status === 200 && r.body === 'ok') return;
    if (Date.now() > until.deadline) {
      const last = `${r.status} ${r.body}`.slice(-2000);
      throw new KubeTestApiserverError(
        'START_FAILED',
        `kube-apiserver not ready in time (last /readyz: ${last}):\n${apiserver.logTail()}`,
      );
    }
    await sleep(100);
  }
}
