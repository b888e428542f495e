import { isIpamError } from '@netledger/ipam-core';
import type { EtcdDatastoreConfig } from './datastore-config.js';
import { DatastoreConfigError } from './datastore-config-error.js';
import type { DatastoreOpenerOptions, StoreOpener } from './store-opener.js';

const transportOf = (config: EtcdDatastoreConfig, options: DatastoreOpenerOptions) =>
  config.transport ?? options.etcd.transport;

/**
 * etcd through its HTTP/JSON gateway (`@netledger/datastore-etcd/gateway`, no gRPC code) or over
 * gRPC from the app's loader. The etcd package parses the endpoints; what it refuses as
 * `InvalidArgument` (a bad endpoint, an unreadable TLS file, a password without a user) is a
 * config error, `InvalidValue`. etcd is connected lazily: an unreachable etcd fails on the first
 * operation.
 */
export const etcdOpener: StoreOpener<EtcdDatastoreConfig> = {
  async load(config, options) {
    await import('@netledger/datastore-etcd/gateway');
    if (transportOf(config, options) === 'grpc') await options.etcd.loadGrpc();
  },
  async open(config, options) {
    const gateway = await import('@netledger/datastore-etcd/gateway');
    const { transport: _, loadGrpc, ...timeouts } = options.etcd;
    const create =
      transportOf(config, options) === 'grpc'
        ? await loadGrpc()
        : gateway.createEtcdGatewayDatastore;
    try {
      return create({
        endpoints: gateway.parseEtcdEndpoints(config.endpoints),
        ...(config.tls && { tls: config.tls }),
        ...(config.username !== undefined && { username: config.username }),
        ...(config.password !== undefined && { password: config.password }),
        ...timeouts,
      });
    } catch (e) {
      if (!isIpamError(e, 'InvalidArgument')) throw e;
      throw new DatastoreConfigError('InvalidValue', e.message, { cause: e });
    }
  },
};
