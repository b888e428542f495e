import { BIG_SEQUENCE, BlockBuilder, createTempDir } from '@netledger/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createK8sDatastore } from './create-k8s-datastore.js';
import type { ScriptedApiserver } from './test-scripted-apiserver.js';
import { startScriptedApiserver } from './test-scripted-apiserver.js';

// Kubernetes' limits (issue 26, item 8) are checked before a request is sent: the scripted API
// server would accept anything, so an empty `received` proves the refusal is the store's own.
let dir: { path: string; remove: () => Promise<void> };
let server: ScriptedApiserver | undefined;
beforeEach(async () => {
  dir = await createTempDir('netledger-kube-limits-');
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await dir.remove();
});

async function storeOn(script: Parameters<typeof startScriptedApiserver>[0]) {
  server = await startScriptedApiserver(script);
  return createK8sDatastore({
    kubeconfig: server.kubeconfigIn(dir.path),
    calicoApiGroup: 'crd.projectcalico.org/v1',
    maxRetries: 0,
  });
}

const KIB = 1024;

describe('Kubernetes store: limits checked before sending', () => {
  it('refuses a pool whose annotations are over 256 KiB, naming it and the limit', async () => {
    const ds = await storeOn([{ status: 201, body: 'echo' }]);
    try {
      const err = await ds
        .create({
          key: { kind: 'IPPool', name: 'p1' },
          value: {
            metadata: { name: 'p1', annotations: { blob: 'x'.repeat(300 * KIB) } },
            spec: { cidr: '10.0.0.0/16' },
          },
        })
        .catch((e: unknown) => e);
      expect(err).toMatchObject({
        code: 'InvalidArgument',
        identifier: '/calico/resources/v3/projectcalico.org/ippools/p1',
      });
      expect((err as Error).message).toMatch(
        /^refusing to write \/calico\/resources\/v3\/projectcalico\.org\/ippools\/p1 on Kubernetes: metadata\.annotations total \d+ bytes \(keys and values\), over Kubernetes' limit of 262144 bytes \(256 KiB\)/,
      );
      expect(server!.received).toEqual([]);
    } finally {
      await ds.close();
    }
  });

  it('refuses a block whose object is over 1.5 MiB (create and update)', async () => {
    const ds = await storeOn([{ status: 201, body: 'echo' }]);
    try {
      const cidr = '10.0.0.0/26';
      const block = {
        cidr,
        affinity: 'host:n1',
        allocations: [0, ...Array<null>(63).fill(null)],
        unallocated: Array.from({ length: 63 }, (_, i) => i + 1),
        attributes: [{ handleId: 'h1', activeOwnerAttrs: { pod: 'p'.repeat(1600 * KIB) } }],
        sequenceNumber: 1n,
        sequenceNumberForAllocation: { '0': 1n },
        deleted: false,
      };
      const key = { kind: 'IPAMBlock', cidr } as const;
      for (const write of [
        () => ds.create({ key, value: block }),
        () => ds.update({ key, value: block, revision: '7' }),
      ]) {
        await expect(write()).rejects.toMatchObject({
          code: 'InvalidArgument',
          message: expect.stringContaining('over the limit of 1572864 bytes (1.5 MiB') as unknown,
        });
      }
      expect(server!.received).toEqual([]);
    } finally {
      await ds.close();
    }
  });

  it('sends a block within the limits, uint64 sequence numbers and all', async () => {
    const ds = await storeOn([{ status: 201, body: 'echo' }]);
    try {
      const cidr = '10.0.0.0/26';
      const block = new BlockBuilder(cidr).affine('n1').allocate([0], 'h1', { pod: 'p' }).build();
      expect(block.sequenceNumber).toBe(BIG_SEQUENCE);
      await ds.create({ key: { kind: 'IPAMBlock', cidr }, value: block });
      expect(server!.received.map((r) => r.method)).toEqual(['POST']);
      expect(server!.received[0]!.body).toContain(String(BIG_SEQUENCE));
    } finally {
      await ds.close();
    }
  });

  it("counts a Node's own annotations with Calico's: an update that would pass 256 KiB is not sent", async () => {
    const node = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name: 'n1',
        resourceVersion: '5',
        uid: 'u1',
        annotations: { 'example.com/inventory': 'i'.repeat(200 * KIB) },
      },
    };
    const ds = await storeOn([{ status: 200, body: node }]);
    try {
      const key = { kind: 'Node', name: 'n1' } as const;
      const value = { metadata: { name: 'n1', annotations: { note: 'n'.repeat(100 * KIB) } } };
      await expect(ds.update({ key, value, revision: '5' })).rejects.toMatchObject({
        code: 'InvalidArgument',
        message: expect.stringMatching(
          /^refusing to write \/calico\/resources\/v3\/projectcalico\.org\/nodes\/n1 on Kubernetes: metadata\.annotations total/,
        ) as unknown,
      });
      // Only the read of the current Node went out; no PATCH.
      expect(server!.received.map((r) => r.method)).toEqual(['GET']);
      // A create carrying too much is refused before the POST.
      await expect(
        ds.create({
          key: { kind: 'Node', name: 'n2' },
          value: { metadata: { name: 'n2', annotations: { note: 'n'.repeat(300 * KIB) } } },
        }),
      ).rejects.toMatchObject({ code: 'InvalidArgument' });
      expect(server!.received.map((r) => r.method)).toEqual(['GET']);
    } finally {
      await ds.close();
    }
  });
});
