import { IpamError } from '@netledger/ipam-core';
import { createDatastoreOnKv } from './datastore-on-kv.js';
import type { EtcdDatastore } from './datastore-on-kv.js';
import { resolveEtcdKvOptions } from './etcd-datastore-options.js';
import type { EtcdDatastoreOptions } from './etcd-datastore-options.js';
import { createGatewayKv } from './gateway-kv.js';
import { createLazyKv } from './lazy-kv.js';

/**
 * A Datastore on etcd v3 with Calico's key layout and JSON values, so Calico and netledger can
 * share one etcd. Writes are Calico's transactions: create on `version == 0`, update and delete on
 * `mod_revision`; `revision` is the mod revision as a decimal string and `uid` the create revision.
 *
 * Connecting is lazy: the factory validates its options (`InvalidArgument`) and never blocks. An
 * operation against an unreachable etcd fails `Unavailable` ("etcd at <endpoints> unreachable: ...")
 * after `dialTimeoutMs`; a write whose answer was lost is re-sent and resolved from etcd's history,
 * so it never reports failure for a change that was applied (see the package README). With
 * `transport: 'http'` the gRPC client (etcd3) is never loaded; with `grpc` it is loaded by the
 * first operation.
 */
export function createEtcdDatastore(options: EtcdDatastoreOptions): EtcdDatastore {
  const kvOptions = resolveEtcdKvOptions(options);
  const transport = options.transport ?? 'grpc';
  switch (transport) {
    case 'http':
      return createDatastoreOnKv(createGatewayKv(kvOptions), kvOptions);
    case 'grpc':
      return createDatastoreOnKv(
        // A dynamic import: etcd3 and grpc-js are evaluated only when this transport is used.
        createLazyKv(async () => (await import('./grpc-kv.js')).createGrpcKv(kvOptions)),
        kvOptions,
      );
    default:
      throw new IpamError(
        'InvalidArgument',
        `etcd transport ${JSON.stringify(transport)} is neither "grpc" nor "http"`,
      );
  }
}
