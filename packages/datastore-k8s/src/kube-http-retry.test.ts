import { findFreePort, createTempDir } from '@netledger/testkit';
import { isIpamError } from '@netledger/ipam-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createK8sDatastore } from './create-k8s-datastore.js';
import type { KubeHttp } from './kube-http.js';
import { createKubeHttp } from './kube-http.js';
import { loadKubeConfig } from './kube-config.js';
import { DEFAULT_RETRY_POLICY } from './request-retry.js';
import type { ScriptedAnswer, ScriptedApiserver } from './test-scripted-apiserver.js';
import { startScriptedApiserver, writeKubeconfig } from './test-scripted-apiserver.js';

let dir: { path: string; remove: () => Promise<void> };
let server: ScriptedApiserver | undefined;
let client: KubeHttp | undefined;
beforeEach(async () => {
  dir = await createTempDir('netledger-kube-retry-');
});
afterEach(async () => {
  client?.close();
  client = undefined;
  await server?.close();
  server = undefined;
  await dir.remove();
});

const throttled = (seconds: string): ScriptedAnswer => ({
  status: 429,
  headers: { 'retry-after': seconds },
});
const ok: ScriptedAnswer = { status: 200, body: { kind: 'Thing' } };

/** The HTTP client on a scripted server (cockatiel waits for real: scripts keep waits short). */
async function clientOn(script: readonly ScriptedAnswer[], retry = DEFAULT_RETRY_POLICY) {
  server = await startScriptedApiserver(script);
  client = createKubeHttp(loadKubeConfig({ kubeconfig: server.kubeconfigIn(dir.path) }), {
    ...noLimitNoJitter,
    retry,
  });
  return { http: client, received: server.received };
}

/** Options with no limit and no jitter. */
const noLimitNoJitter = {
  requestTimeoutMs: 5_000,
  limiter: { take: async () => {} },
  random: () => 0,
};

describe('the HTTP client retries what the server did not process', () => {
  it.each(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const)(
    'a %s answered 429 is sent again after Retry-After until it is answered',
    async (method) => {
      const { http, received } = await clientOn([throttled('1'), throttled('0'), ok]);
      const res = await http.request({ method, path: '/x', body: { a: 1 } });
      expect(res).toMatchObject({ status: 200, retried: { count: 2, waitedMs: 1000 } });
      expect(received.map((r) => `${r.method} ${r.body}`)).toEqual(
        Array(3).fill(`${method} {"a":1}`),
      );
    },
  );

  it('gives up after maxRetries and returns the last 429, saying how many retries it made', async () => {
    const { http, received } = await clientOn([throttled('0')], {
      ...DEFAULT_RETRY_POLICY,
      maxRetries: 3,
    });
    const res = await http.request({ method: 'PUT', path: '/x', body: {} });
    expect(res).toMatchObject({ status: 429, retried: { count: 3, waitedMs: 0 } });
    expect(received).toHaveLength(4);
  });

  it('stops when the next wait would pass the total wait allowed', async () => {
    const { http, received } = await clientOn([throttled('1')], {
      ...DEFAULT_RETRY_POLICY,
      maxWaitMs: 2_500,
    });
    const res = await http.request({ method: 'POST', path: '/x', body: {} });
    expect(res).toMatchObject({ status: 429, retried: { count: 2, waitedMs: 2000 } });
    expect(received).toHaveLength(3);
  });

  it('retries a read answered 500 or cut off, with a backoff when no Retry-After is given', async () => {
    const { http, received } = await clientOn([
      { status: 500 },
      { cut: true },
      { status: 503 },
      ok,
    ]);
    const res = await http.request({ method: 'GET', path: '/x' });
    // random() = 0: half of 100, 200, 400 ms.
    expect(res).toMatchObject({ status: 200, retried: { count: 3, waitedMs: 50 + 100 + 200 } });
    expect(received).toHaveLength(4);
  });

  it.each(['POST', 'PUT', 'PATCH', 'DELETE'] as const)(
    'sends a %s answered 500 once: its outcome is unknown',
    async (method) => {
      const { http, received } = await clientOn([{ status: 500 }, ok]);
      const res = await http.request({ method, path: '/x', body: {} });
      expect(res.status).toBe(500);
      expect(res.retried).toBeUndefined();
      expect(received).toHaveLength(1);
    },
  );

  it('sends a write whose connection was cut once: its outcome is unknown', async () => {
    const { http, received } = await clientOn([{ cut: true }, ok]);
    await expect(http.request({ method: 'PUT', path: '/x', body: {} })).rejects.toThrow(
      /socket hang up|ECONNRESET/,
    );
    expect(received).toHaveLength(1);
  });

  it('fails at once when the connection is refused (the API server is down)', async () => {
    const port = await findFreePort();
    const kubeconfig = writeKubeconfig(dir.path, `http://127.0.0.1:${port}`);
    client = createKubeHttp(loadKubeConfig({ kubeconfig }), noLimitNoJitter);
    const err = await client.request({ method: 'GET', path: '/x' }).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/ECONNREFUSED/);
    expect((err as Error).message).not.toMatch(/after \d+ retr/);
  });

  it.each([1, 2])(
    'stops retrying once the client is closed (closed during attempt %i)',
    async (closeAt) => {
      // Closed during an attempt, the request ends at once: the 10 s Retry-After wait then due
      // (capped at 0 ms before attempt 2, to reach it) would outlast the test's timeout.
      server = await startScriptedApiserver([throttled('10')], {
        onRequest: (n) => {
          if (n === closeAt) closing.close();
        },
      });
      const closing = createKubeHttp(
        loadKubeConfig({ kubeconfig: server.kubeconfigIn(dir.path) }),
        {
          ...noLimitNoJitter,
          retry: { ...DEFAULT_RETRY_POLICY, maxRetryAfterMs: closeAt === 1 ? 10_000 : 0 },
        },
      );
      await expect(closing.request({ method: 'GET', path: '/x' })).rejects.toMatchObject({
        code: 'Unavailable',
        message: 'datastore is closed',
      });
      expect(server.received).toHaveLength(closeAt);
    },
  );
});

describe('the datastore over a throttling API server', () => {
  const handle = {
    key: { kind: 'IPAMHandle', handleId: 'h1' },
    value: { handleId: 'h1', block: { '10.0.0.0/26': 1 }, deleted: false },
  } as const;

  it('creates once through 429s: the object written is the one asked for', async () => {
    server = await startScriptedApiserver([
      throttled('0'),
      throttled('0'),
      { status: 201, body: 'echo' },
    ]);
    const ds = createK8sDatastore({
      kubeconfig: server.kubeconfigIn(dir.path),
      calicoApiGroup: 'crd.projectcalico.org/v1',
    });
    try {
      const kv = await ds.create(handle);
      expect(kv).toMatchObject({ value: { handleId: 'h1' }, revision: '103' });
      expect(server.received.map((r) => r.method)).toEqual(['POST', 'POST', 'POST']);
    } finally {
      await ds.close();
    }
  });

  it('fails an update answered 500 with Unavailable after one PUT (never written twice)', async () => {
    const stored = {
      apiVersion: 'crd.projectcalico.org/v1',
      kind: 'IPAMHandle',
      metadata: { name: 'h1', resourceVersion: '7', uid: 'u1' },
      spec: { handleID: 'h1', block: { '10.0.0.0/26': 1 }, deleted: false },
    };
    server = await startScriptedApiserver([
      { status: 200, body: stored },
      { status: 500 },
      { status: 200, body: 'echo' },
    ]);
    const ds = createK8sDatastore({
      kubeconfig: server.kubeconfigIn(dir.path),
      calicoApiGroup: 'crd.projectcalico.org/v1',
    });
    try {
      const read = await ds.get(handle.key);
      const err = await ds.update(read).catch((e: unknown) => e);
      expect(isIpamError(err, 'Unavailable')).toBe(true);
      expect((err as Error).message).toMatch(/failed \(HTTP 500\) for PUT ipamhandles\/h1/);
      expect(server.received.map((r) => r.method)).toEqual(['GET', 'PUT']);
    } finally {
      await ds.close();
    }
  });

  it('names the retries in the error once a 429 outlasts them', async () => {
    server = await startScriptedApiserver([throttled('0')]);
    const ds = createK8sDatastore({
      kubeconfig: server.kubeconfigIn(dir.path),
      calicoApiGroup: 'crd.projectcalico.org/v1',
      maxRetries: 2,
    });
    try {
      await expect(ds.get({ kind: 'IPAMHandle', handleId: 'h1' })).rejects.toMatchObject({
        code: 'Unavailable',
        message: expect.stringMatching(/HTTP 429.*\(after 2 retries over 0 ms\)$/),
      });
      expect(server.received).toHaveLength(3);
    } finally {
      await ds.close();
    }
  });

  it('with maxRetries 0 sends each request once', async () => {
    server = await startScriptedApiserver([throttled('0'), { status: 201, body: 'echo' }]);
    const ds = createK8sDatastore({
      kubeconfig: server.kubeconfigIn(dir.path),
      calicoApiGroup: 'crd.projectcalico.org/v1',
      maxRetries: 0,
    });
    try {
      await expect(ds.create(handle)).rejects.toMatchObject({ code: 'Unavailable' });
      expect(server.received).toHaveLength(1);
    } finally {
      await ds.close();
    }
  });
});
