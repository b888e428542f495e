// Reads and writes of a key's object under either of its names: Calico's, and for a block
// affinity whose Calico name is missing or held by the other affinity type, netledger's alternate.
import type { DatastoreKey } from '@netledger/ipam-core';
import { describeKey } from '@netledger/ipam-core/adapter';
import type { JsonObject } from './ipam-crd-codec.js';
import type { KubeCalls } from './kube-calls.js';
import type { KubeResponse } from './kube-http.js';
import type { KubeObjectDecoder } from './kube-object-decoder.js';
import { isObject } from './kube-object-kv.js';
import type { KubePaths } from './kube-paths.js';

/** What the named reads and writes use. */
export type NamedObjectPorts = KubeCalls &
  Pick<KubePaths, 'describe' | 'pathAt' | 'namesOf'> &
  Pick<KubeObjectDecoder, 'toKv'>;

/** Whether two keys name the same object (the kind's identifying fields are equal). */
export function sameKey(a: DatastoreKey, b: DatastoreKey): boolean {
  return describeKey(a) === describeKey(b);
}

/** Whether the object at `name` is `key`'s (`absent` when there is none). */
async function holder(
  p: NamedObjectPorts,
  key: DatastoreKey,
  name: string,
): Promise<'same' | 'other' | 'absent'> {
  const fail: KubeCalls['fail'] = p.fail;
  const res = await p.call({ method: 'GET', path: p.pathAt(key, name) }, p.describe(key), key);
  if (res.status === 404) return 'absent';
  if (res.status !== 200 || !isObject(res.body))
    fail(res, { method: 'GET', object: p.describe(key), key });
  const kv = p.toKv(key.kind, res.body);
  return kv && sameKey(kv.key, key) ? 'same' : 'other';
}

/**
 * Runs a write on the key's object under Calico's name, and for an affinity whose Calico name is
 * missing (404) or held by the other type (409 and another key there) under the alternate name.
 */
export async function onName(
  p: NamedObjectPorts,
  key: DatastoreKey,
  run: (name: string) => Promise<KubeResponse>,
): Promise<{ res: KubeResponse; name: string }> {
  const [primary, alternate] = p.namesOf(key);
  const res = await run(primary);
  if (alternate === undefined || (res.status !== 404 && res.status !== 409)) {
    return { res, name: primary };
  }
  if (res.status === 409 && (await holder(p, key, primary)) !== 'other')
    return { res, name: primary };
  return { res: await run(alternate), name: alternate };
}

/** The key's object and the name it is under; the error of a failed read (404: `DoesNotExist`). */
export async function getRawNamed(
  p: NamedObjectPorts,
  key: DatastoreKey,
): Promise<{ raw: JsonObject; name: string }> {
  const fail: KubeCalls['fail'] = p.fail;
  const object = p.describe(key);
  const [primary, alternate] = p.namesOf(key);
  const res = await p.call({ method: 'GET', path: p.pathAt(key, primary) }, object, key);
  if (res.status === 200 && isObject(res.body)) {
    const kv = alternate === undefined ? undefined : p.toKv(key.kind, res.body);
    if (alternate === undefined || (kv && sameKey(kv.key, key)))
      return { raw: res.body, name: primary };
  } else if (res.status !== 404 || alternate === undefined)
    fail(res, { method: 'GET', object, key });
  const alt = await p.call({ method: 'GET', path: p.pathAt(key, alternate) }, object, key);
  if (alt.status !== 200 || !isObject(alt.body)) fail(alt, { method: 'GET', object, key });
  return { raw: alt.body, name: alternate };
}
