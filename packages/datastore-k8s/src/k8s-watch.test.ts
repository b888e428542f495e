import { createTempDir } from '@netledger/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WatchEvent } from '@netledger/ipam-core';
import { createK8sWatch } from './k8s-watch.js';
import type { KubeHttp } from './kube-http.js';
import { createKubeHttp } from './kube-http.js';
import { loadKubeConfig } from './kube-config.js';
import type { ScriptedAnswer, ScriptedApiserver } from './test-scripted-apiserver.js';
import { startScriptedApiserver } from './test-scripted-apiserver.js';

let dir: { path: string; remove: () => Promise<void> };
let server: ScriptedApiserver | undefined;
let http: KubeHttp | undefined;
beforeEach(async () => {
  dir = await createTempDir('netledger-kube-watch-');
});
afterEach(async () => {
  http?.close();
  http = undefined;
  await server?.close();
  server = undefined;
  await dir.remove();
});

/** A watch from revision 5 on a scripted server; `closeAt` closes it when that request arrives. */
async function watchOn(script: readonly ScriptedAnswer[], closeAt?: number) {
  let close = (): void => undefined;
  server = await startScriptedApiserver(script, {
    onRequest: (n) => {
      if (n === closeAt) close();
    },
  });
  http = createKubeHttp(loadKubeConfig({ kubeconfig: server.kubeconfigIn(dir.path) }), {
    requestTimeoutMs: 5_000,
    limiter: { take: async () => {} },
    retry: { maxRetries: 0, maxWaitMs: 0, baseBackoffMs: 0, maxBackoffMs: 0, maxRetryAfterMs: 0 },
  });
  const watch = createK8sWatch(
    {
      http,
      path: '/apis/crd.projectcalico.org/v1/ipamblocks',
      resource: 'ipamblocks',
      softDelete: true,
      decode: () => undefined,
      currentRevision: async () => '1',
    },
    { revision: '5' },
  );
  close = watch.close;
  const events: WatchEvent[] = [];
  const ended = (async () => {
    for await (const e of watch) events.push(e);
  })();
  return { watch, events, ended, received: server.received };
}

const resourceVersions = (received: readonly { url: string }[]): (string | null)[] =>
  received.map((r) => new URL(r.url, 'http://x').searchParams.get('resourceVersion'));

describe('the watch reconnects through cockatiel', () => {
  it('reconnects after a 503 (after its backoff), resumes from a bookmark, and stops once closed', async () => {
    const bookmark = { type: 'BOOKMARK', object: { metadata: { resourceVersion: '9' } } };
    const { watch, events, ended, received } = await watchOn(
      [{ status: 503 }, { status: 200, body: bookmark }],
      3,
    );
    await watch.established;
    await ended;
    expect(events).toEqual([]);
    // 503: reconnected after the backoff; the stream the server ended: resumed at once from 9.
    expect(resourceVersions(received)).toEqual(['5', '5', '9']);
  });

  it('ends with the error of an answer that is not worth a reconnect (403), asking once', async () => {
    const { ended, received } = await watchOn([{ status: 403 }]);
    await expect(ended).rejects.toMatchObject({
      code: 'Unavailable',
      message: expect.stringMatching(/forbids it for WATCH ipamblocks/),
    });
    expect(received).toHaveLength(1);
  });
});
