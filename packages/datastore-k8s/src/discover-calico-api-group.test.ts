import { createTempDir } from '@netledger/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createK8sDatastore } from './create-k8s-datastore.js';
import { kubeObjectReaderOf } from './kube-object-reader.js';
import type { ScriptedAnswer, ScriptedApiserver } from './test-scripted-apiserver.js';
import { startScriptedApiserver } from './test-scripted-apiserver.js';

// Which group the store uses, on a scripted API server: what it asks before its first request, and
// where that request goes. The real API server with each group's CRDs is in the int tests.
let dir: { path: string; remove: () => Promise<void> };
let server: ScriptedApiserver | undefined;
beforeEach(async () => {
  dir = await createTempDir('netledger-kube-discovery-');
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await dir.remove();
});

const groups = (...names: string[]): ScriptedAnswer => ({
  status: 200,
  body: { kind: 'APIGroupList', apiVersion: 'v1', groups: names.map((name) => ({ name })) },
});
const handle = (apiVersion: string): ScriptedAnswer => ({
  status: 200,
  body: {
    apiVersion,
    kind: 'IPAMHandle',
    metadata: { name: 'h1', resourceVersion: '5', uid: 'u1' },
    spec: { handleID: 'h1', block: {}, deleted: false },
  },
});
const key = { kind: 'IPAMHandle', handleId: 'h1' } as const;

async function storeOn(script: readonly ScriptedAnswer[], calicoApiGroup?: string) {
  server = await startScriptedApiserver(script);
  return createK8sDatastore({
    kubeconfig: server.kubeconfigIn(dir.path),
    maxRetries: 0,
    ...(calicoApiGroup !== undefined && { calicoApiGroup }),
  });
}

describe("the Calico API group, found as Calico's UsingV3CRDs finds it", () => {
  it.each([
    [['apps', 'projectcalico.org'], 'projectcalico.org/v3'],
    [['crd.projectcalico.org'], 'crd.projectcalico.org/v1'],
    [['projectcalico.org', 'crd.projectcalico.org'], 'crd.projectcalico.org/v1'],
  ])('served %j: asks /apis once, then uses %s', async (served, group) => {
    const ds = await storeOn([groups(...served), handle(group)]);
    try {
      await ds.get(key);
      await ds.get(key);
      expect(server!.received.map((r) => r.url)).toEqual([
        '/apis',
        `/apis/${group}/ipamhandles/h1`,
        `/apis/${group}/ipamhandles/h1`,
      ]);
      await expect(kubeObjectReaderOf(ds)!.calicoApiGroup()).resolves.toBe(group);
    } finally {
      await ds.close();
    }
  });

  it('with calicoApiGroup set, asks nothing and uses it', async () => {
    const ds = await storeOn([handle('projectcalico.org/v3')], 'projectcalico.org/v3');
    try {
      await ds.get(key);
      expect(server!.received.map((r) => r.url)).toEqual([
        '/apis/projectcalico.org/v3/ipamhandles/h1',
      ]);
    } finally {
      await ds.close();
    }
  });

  it('a discovery that fails fails the call, guesses nothing, and is tried again by the next', async () => {
    const ds = await storeOn([
      { status: 403 },
      groups('projectcalico.org'),
      handle('projectcalico.org/v3'),
    ]);
    try {
      await expect(ds.get(key)).rejects.toMatchObject({
        code: 'Unavailable',
        message: expect.stringContaining('for GET /apis (the API groups'),
      });
      expect(server!.received.map((r) => r.url)).toEqual(['/apis']);
      await expect(ds.get(key)).resolves.toMatchObject({ key });
      expect(server!.received.map((r) => r.url)).toEqual([
        '/apis',
        '/apis',
        '/apis/projectcalico.org/v3/ipamhandles/h1',
      ]);
    } finally {
      await ds.close();
    }
  });

  it('a watch opened before a failed discovery is established, and its iteration throws', async () => {
    const ds = await storeOn([{ status: 200, body: { kind: 'Status' } }]);
    try {
      const stream = ds.watch({ kind: 'IPAMHandle' });
      await stream.established;
      const iteration = (async () => {
        for await (const _ of stream) void _;
      })();
      await expect(iteration).rejects.toMatchObject({
        code: 'Unavailable',
        message: expect.stringContaining('without an APIGroupList'),
      });
    } finally {
      await ds.close();
    }
  });
});
