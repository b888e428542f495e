import { readFile } from 'node:fs/promises';
import { parseCalicoPaths } from './parse-calico-paths.js';
import type { RawBlock, RawIpam } from './raw-ipam.js';

/** The file store's IPAM objects, read from its JSON document (no lock: a rename is atomic). */
export async function readFileStoreRaw(path: string): Promise<RawIpam> {
  const doc = JSON.parse(await readFile(path, 'utf8')) as {
    entries: Record<string, { value: string }>;
  };
  return parseCalicoPaths(Object.entries(doc.entries).map(([k, e]) => [k, e.value]));
}

const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');

/**
 * etcd's IPAM objects, read with one range request under `/calico/ipam/v2/` through etcd's own
 * HTTP/JSON gateway (`/v3/kv/range`), not through netledger's etcd client.
 */
export async function readEtcdRaw(endpoint: string): Promise<RawIpam> {
  const res = await fetch(`${endpoint}/v3/kv/range`, {
    method: 'POST',
    body: JSON.stringify({ key: b64('/calico/ipam/v2/'), range_end: b64('/calico/ipam/v20') }),
  });
  if (!res.ok) throw new Error(`etcd range at ${endpoint}: HTTP ${res.status}`);
  const body = (await res.json()) as { kvs?: { key: string; value: string }[] };
  return parseCalicoPaths(
    (body.kvs ?? []).map((kv) => [
      Buffer.from(kv.key, 'base64').toString('utf8'),
      Buffer.from(kv.value, 'base64').toString('utf8'),
    ]),
  );
}

/** Runs kubectl and answers its stdout (the fixture's `kubectl`). */
export type Kubectl = (
  args: readonly string[],
) => Promise<{ status: number; stdout: string; stderr: string }>;

async function listCrd(
  kubectl: Kubectl,
  plural: string,
): Promise<{ spec: Record<string, unknown> }[]> {
  const r = await kubectl(['get', `${plural}.crd.projectcalico.org`, '-o', 'json']);
  if (r.status !== 0) throw new Error(`kubectl get ${plural}: ${r.stderr}`);
  return (JSON.parse(r.stdout) as { items: { spec: Record<string, unknown> }[] }).items;
}

/** The Kubernetes store's IPAM objects, listed with kubectl (the CRDs' specs as the API server holds them). */
export async function readKubeRaw(kubectl: Kubectl): Promise<RawIpam> {
  const [blocks, handles, affinities] = await Promise.all(
    ['ipamblocks', 'ipamhandles', 'blockaffinities'].map((p) => listCrd(kubectl, p)),
  );
  return {
    blocks: blocks!.map((o) => o.spec as unknown as RawBlock),
    handles: handles!.map((o) => {
      const s = o.spec as { handleID: string; block?: Record<string, number>; deleted?: boolean };
      return { handleId: s.handleID, block: s.block ?? {}, deleted: s.deleted ?? false };
    }),
    affinities: affinities!.map((o) => {
      const s = o.spec as { node: string; cidr: string; state: string };
      return { host: s.node, cidr: s.cidr, state: s.state };
    }),
  };
}
