import { afterAll, expect, it } from 'vitest';
import { createSharedKube } from '../test/shared-kube.js';
import { decodeCrd } from './crd-kinds.js';
import type { JsonObject } from './ipam-crd-codec.js';
import { createK8sWatch } from './k8s-watch.js';
import type { KubeHttp } from './kube-http.js';
import { createKubeHttp, loadKubeConfig } from './kube-http.js';
import { createTokenBucket } from './token-bucket.js';

const kube = createSharedKube();
afterAll(() => kube.stop());

it('resumes from the last revision when the server ends the watch, losing nothing', async () => {
  const api = await kube.get();
  const ds = await kube.open();
  const http = createKubeHttp(loadKubeConfig({ kubeconfig: api.kubeconfigPath }), {
    requestTimeoutMs: 30_000,
    limiter: createTokenBucket({ qps: 100, burst: 100 }),
  });
  // Count the watch requests, and let a test wait for the second one (the resume).
  let opened = 0;
  let onOpen: (() => void) | undefined;
  const counting: KubeHttp = {
    ...http,
    server: http.server,
    request: (r) => http.request(r),
    stream: async (r) => {
      const s = await http.stream(r);
      opened++;
      onOpen?.();
      return s;
    },
  };
  const reopened = new Promise<void>((resolve) => {
    onOpen = () => {
      if (opened >= 2) resolve();
    };
  });
  const { revision } = await ds.list({ kind: 'IPAMHandle' });
  const stream = createK8sWatch(
    {
      http: counting,
      path: '/apis/crd.projectcalico.org/v1/ipamhandles',
      resource: 'ipamhandles',
      softDelete: true,
      timeoutSeconds: 1,
      decode: (o: JsonObject) => {
        const d = decodeCrd('IPAMHandle', o);
        return d && { ...d, revision: '' };
      },
      currentRevision: () => Promise.resolve(revision),
    },
    { revision },
  );
  const events = stream[Symbol.asyncIterator]();
  await stream.established;
  await ds.create({
    key: { kind: 'IPAMHandle', handleId: 'before-resume' },
    value: { handleId: 'before-resume', block: {}, deleted: false },
  });
  expect(await events.next()).toMatchObject({ value: { type: 'added' } });
  await reopened; // the server ended the first request after 1 s; the watch asked again
  await ds.create({
    key: { kind: 'IPAMHandle', handleId: 'after-resume' },
    value: { handleId: 'after-resume', block: {}, deleted: false },
  });
  expect(await events.next()).toMatchObject({
    value: { type: 'added', kv: { key: { handleId: 'after-resume' } } },
  });
  stream.close();
  http.close();
  await ds.close();
});
