// Kubernetes' limits checked before a write is sent, so that an object the API server would refuse
// (or accept only to make every later read slow) is refused here, naming the object and the limit,
// with nothing sent. The rules are ipam-core's, the same every other store applies.
import type { DatastoreKey } from '@netledger/ipam-core';
import { IpamError } from '@netledger/ipam-core';
import {
  annotationsProblems,
  assertObjectSize,
  describeKey,
  stringifyJson,
} from '@netledger/ipam-core/adapter';
import type { JsonObject } from './ipam-crd-codec.js';
import { isObject } from './kube-object-kv.js';

/**
 * Refuses `object`, the Kubernetes object that a write to `key` would leave stored, when its
 * annotations (keys and values together) are over 256 KiB or its JSON is over 1.5 MiB:
 * `IpamError('InvalidArgument')` naming the key and the limit. For a Node, whose Calico data
 * lives in annotations next to the Node's own, pass the Node as it will be after the patch.
 */
export function assertKubeObjectLimits(key: DatastoreKey, object: JsonObject): void {
  const metadata = isObject(object.metadata) ? object.metadata : {};
  const problems = annotationsProblems(metadata.annotations);
  if (problems.length > 0) {
    const what = describeKey(key);
    throw new IpamError(
      'InvalidArgument',
      `refusing to write ${what} on Kubernetes: ${problems.join('; ')}`,
      { identifier: what },
    );
  }
  // As the request will carry it (uint64 sequence numbers as bigints included).
  assertObjectSize(key, stringifyJson(object));
}
