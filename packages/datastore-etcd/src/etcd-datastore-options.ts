import { IpamError } from '@netledger/ipam-core';
import type { EtcdKvOptions } from './etcd-kv.js';
import { loadTlsMaterial } from './load-tls-material.js';
import type { EtcdTlsOptions } from './load-tls-material.js';
import { parseEtcdEndpoints } from './parse-etcd-endpoints.js';

/** How the Datastore talks to etcd: gRPC (etcd3), or etcd's HTTP/JSON gateway (node:http). */
export type EtcdTransport = 'grpc' | 'http';

/** Options for `createEtcdDatastore`, named after Calico's etcd settings. */
export interface EtcdDatastoreOptions {
  /**
   * Client endpoints (Calico's `etcd_endpoints`, already split: see `parseEtcdEndpoints`):
   * `http(s)://host:port` URLs, or `host:port` / `[IPv6]:port`, which are `https://` when `tls`
   * is given and `http://` otherwise, as in etcd's clientv3.
   */
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
  /** The deadline of each request to etcd (the gRPC deadline, or the HTTP request's). Default 10,000 ms. */
  readonly requestTimeoutMs?: number;
  /**
   * `grpc` (default): etcd3 over gRPC, one multiplexed HTTP/2 connection; best for a long-lived
   * process making many calls. `http`: etcd's HTTP/JSON gateway on the same client port over
   * node:http(s), with the same semantics (compare-and-swap, lost-answer resolution, watch,
   * errors). Choose `http` for a one-shot process such as the CNI plugin: loading grpc-js and
   * connecting costs many times a plain HTTP request in CPU (docs/benchmarks.md, `cni`), and with
   * `http` the gRPC client is never loaded. (`createEtcdGatewayDatastore` is the same without any gRPC code in its imports.)
   */
  readonly transport?: EtcdTransport;
}

/**
 * Validates datastore options and loads the TLS files: what either transport is created from.
 * Throws `InvalidArgument` for bad endpoints, a non-positive timeout, a password without a user,
 * or TLS material that cannot be read.
 */
export function resolveEtcdKvOptions(options: EtcdDatastoreOptions): EtcdKvOptions {
  const endpoints = parseEtcdEndpoints(options.endpoints.join(','), {
    tls: options.tls !== undefined,
  });
  const positive = (name: string, v: number | undefined, fallback: number): number => {
    if (v === undefined) return fallback;
    if (!Number.isFinite(v) || v <= 0)
      throw new IpamError('InvalidArgument', `etcd ${name} must be a positive number of ms`);
    return v;
  };
  if (options.password !== undefined && options.username === undefined) {
    throw new IpamError('InvalidArgument', 'etcd password given without a username');
  }
  return {
    endpoints,
    tls: options.tls ? loadTlsMaterial(options.tls) : undefined,
    username: options.username,
    password: options.password,
    dialTimeoutMs: positive('dialTimeoutMs', options.dialTimeoutMs, 10_000),
    requestTimeoutMs: positive('requestTimeoutMs', options.requestTimeoutMs, 10_000),
  };
}
