import { IpamError } from '@netledger/ipam-core';
import type { Datastore } from '@netledger/ipam-core';
import { createEtcdReads } from './etcd-reads.js';
import { createEtcdSession } from './etcd-session.js';
import { openEtcdWatch } from './etcd-watch.js';
import type { EtcdWatch } from './etcd-watch.js';
import { createEtcdWrites } from './etcd-writes.js';
import { loadTlsMaterial } from './load-tls-material.js';
import type { EtcdTlsOptions } from './load-tls-material.js';
import { parseEtcdEndpoints } from './parse-etcd-endpoints.js';

/** Options for {@link createEtcdDatastore}, named after Calico's etcd settings. */
export interface EtcdDatastoreOptions {
  /** Client URLs (Calico's `etcd_endpoints`, already split: see `parseEtcdEndpoints`). */
  readonly endpoints: readonly string[];
  /** TLS material, each a file path or PEM text (`etcd_ca_cert_file`, `etcd_cert_file`, `etcd_key_file`). */
  readonly tls?: EtcdTlsOptions;
  /** etcd user (`etcd_username`); `password` goes with it. */
  readonly username?: string;
  readonly password?: string;
  /**
   * How long one operation keeps retrying while no endpoint answers (connection refused, no
   * leader during an election) before it fails `Unavailable`. Default 10,000 ms.
   */
  readonly dialTimeoutMs?: number;
  /** The gRPC deadline of each request to etcd. Default 10,000 ms. */
  readonly requestTimeoutMs?: number;
}

/** A Datastore on etcd v3 (what {@link createEtcdDatastore} returns). */
export type EtcdDatastore = Datastore;

/**
 * A Datastore on etcd v3 with Calico's key layout and JSON values, so Calico and netledger can
 * share one etcd. Writes are Calico's transactions: create on `version == 0`, update and delete on
 * `mod_revision`; `revision` is the mod revision as a decimal string and `uid` the create revision.
 *
 * Connecting is lazy: the factory validates its options (`InvalidArgument`) and never blocks. An
 * operation against an unreachable etcd fails `Unavailable` ("etcd at <endpoints> unreachable: ...")
 * after `dialTimeoutMs`; a write whose answer was lost is re-sent and resolved from etcd's history,
 * so it never reports failure for a change that was applied (see the package README).
 */
export function createEtcdDatastore(options: EtcdDatastoreOptions): EtcdDatastore {
  const endpoints = parseEtcdEndpoints(options.endpoints.join(','));
  const positive = (name: string, v: number | undefined, fallback: number): number => {
    if (v === undefined) return fallback;
    if (!Number.isFinite(v) || v <= 0)
      throw new IpamError('InvalidArgument', `etcd ${name} must be a positive number of ms`);
    return v;
  };
  if (options.password !== undefined && options.username === undefined) {
    throw new IpamError('InvalidArgument', 'etcd password given without a username');
  }
  const session = createEtcdSession({
    endpoints,
    tls: options.tls ? loadTlsMaterial(options.tls) : undefined,
    username: options.username,
    password: options.password,
    dialTimeoutMs: positive('dialTimeoutMs', options.dialTimeoutMs, 10_000),
    requestTimeoutMs: positive('requestTimeoutMs', options.requestTimeoutMs, 10_000),
  });
  const reads = createEtcdReads(session);
  const writes = createEtcdWrites(session);
  const watches = new Set<EtcdWatch>();

  return {
    create: (kv) => writes.create(kv),
    update: (kv) => writes.update(kv),
    apply: (kv) => writes.apply(kv),
    delete: (key, deleteOptions) => writes.delete(key, deleteOptions),
    get: (key) => reads.get(key),
    list: (listOptions) => reads.list(listOptions),
    listMany: (listOptions) => reads.listMany(listOptions),
    watch(listOptions, watchOptions) {
      session.assertOpen();
      const watch = openEtcdWatch(session, listOptions, watchOptions);
      watches.add(watch);
      return {
        ...watch,
        close: () => {
          watches.delete(watch);
          watch.end();
        },
      };
    },
    async close() {
      for (const w of watches) w.end();
      watches.clear();
      session.close();
    },
  };
}
