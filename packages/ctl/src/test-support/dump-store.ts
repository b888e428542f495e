import { encodeValue, keyToPath } from '@netledger/ipam-core/adapter';
import type { Datastore, Kind } from '@netledger/ipam-core';

const KINDS: readonly Kind[] = [
  'IPPool',
  'IPReservation',
  'Node',
  'IPAMConfig',
  'IPAMBlock',
  'BlockAffinity',
  'IPAMHandle',
];

/** Every object of the IPAM kinds as etcd path -> Calico JSON, for comparing two stores. */
export async function dumpStore(ds: Datastore): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const kind of KINDS) {
    for (const kv of (await ds.list({ kind })).items) {
      let value = kv.value as unknown;
      if (kind === 'IPPool' || kind === 'IPReservation' || kind === 'Node') {
        const v = value as { metadata: Record<string, unknown> };
        const { resourceVersion: _rv, uid: _uid, ...metadata } = v.metadata;
        value = { ...v, metadata };
      }
      out[keyToPath(kv.key)] = encodeValue(kind, value as never);
    }
  }
  return out;
}
