import { readFileSync } from 'node:fs';
import { IpamError } from '@netledger/ipam-core';

/** TLS material for etcd: each entry is a file path or the PEM text itself. */
export interface EtcdTlsOptions {
  /** CA bundle (Calico's `etcd_ca_cert_file`); default: the system roots. */
  readonly ca?: string;
  /** Client certificate (Calico's `etcd_cert_file`). */
  readonly cert?: string;
  /** Client private key (Calico's `etcd_key_file`). */
  readonly key?: string;
}

/** The loaded material, as the gRPC layer takes it. */
export interface TlsMaterial {
  readonly ca: Buffer | undefined;
  readonly cert: Buffer | undefined;
  readonly key: Buffer | undefined;
}

const load = (what: string, value: string | undefined): Buffer | undefined => {
  if (value === undefined || value === '') return undefined;
  if (value.includes('-----BEGIN')) return Buffer.from(value);
  try {
    return readFileSync(value);
  } catch (e) {
    throw new IpamError('InvalidArgument', `etcd TLS ${what} ${value}: ${(e as Error).message}`, {
      identifier: value,
      cause: e,
    });
  }
};

/**
 * Reads TLS material given as file paths or PEM text. Throws `InvalidArgument` naming the file
 * when one cannot be read, or when only one of `cert` and `key` is given.
 */
export function loadTlsMaterial(tls: EtcdTlsOptions): TlsMaterial {
  if ((tls.cert === undefined) !== (tls.key === undefined)) {
    throw new IpamError('InvalidArgument', 'etcd TLS: cert and key must be given together');
  }
  return { ca: load('CA', tls.ca), cert: load('cert', tls.cert), key: load('key', tls.key) };
}
