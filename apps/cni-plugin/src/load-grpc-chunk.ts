import { evaluateChunk } from './evaluate-chunk.js';
import type * as OpenGrpcEtcd from './open-etcd-grpc.js';

/**
 * The gRPC etcd adapter, compiled only when a config asks for `etcd_transport: "grpc"`: build.mjs
 * embeds it in the bundle as brotli-compressed CommonJS text (`netledger:grpc-chunk`). Its
 * `@netledger/ipam-core` import is answered with this bundle's copy, so there is one IpamError class.
 */
export function loadGrpcChunk(): Promise<typeof OpenGrpcEtcd> {
  loaded ??= import('netledger:grpc-chunk').then(({ default: compressed }) =>
    evaluateChunk<typeof OpenGrpcEtcd>(compressed),
  );
  return loaded;
}

let loaded: Promise<typeof OpenGrpcEtcd> | undefined;
