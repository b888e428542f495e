import { IpamError } from '../errors.js';

/**
 * A store revision as a number. Every store in netledger (etcd mod revisions, the memory and
 * file stores' counters) uses decimal integers that grow with each write; etcd's are int64, so
 * they are compared as `bigint`. Throws `CorruptValue` for anything else: code that orders
 * revisions cannot work over a store whose revisions are opaque.
 */
export function parseRevision(revision: string): bigint {
  if (!/^\d+$/.test(revision)) {
    throw new IpamError(
      'CorruptValue',
      `revision ${JSON.stringify(revision)} is not a decimal integer`,
      {
        identifier: revision,
      },
    );
  }
  return BigInt(revision);
}
