import { parseAllDocuments, stringify } from 'yaml';
import {
  decodeValue,
  encodeValue,
  keyToPath,
  parseJson,
  pathToKey,
  stringifyJson,
} from '@netledger/ipam-core/adapter';
import type {
  AllocationBlock,
  Datastore,
  DatastoreKey,
  KVPair,
  Kind,
  NewKVPair,
} from '@netledger/ipam-core';
import type { JsonValue } from '@netledger/ipam-core/adapter';
import { isIpamError, validateObjectMeta } from '@netledger/ipam-core';
import { CtlError } from '../ctl-error.js';
import { formatJson } from '../output/format-json.js';
import { CLUSTER_INFORMATION_KEY, readClusterInformation } from './cluster-information.js';

/** Handle prefixes of tunnel addresses; Calico's migration misses the two v6 ones (fixed here). */
const TUNNEL_HANDLE_PREFIXES = [
  'ipip-tunnel-addr-',
  'vxlan-tunnel-addr-',
  'vxlan-v6-tunnel-addr-',
  'wireguard-tunnel-addr-',
  'wireguard-v6-tunnel-addr-',
] as const;

/** Node renames applied by an export: old name -> new name. */
export type NodeRenames = ReadonlyMap<string, string>;

const RESOURCE_KINDS = ['IPPool', 'IPReservation', 'Node'] as const;
const IPAM_KINDS = ['BlockAffinity', 'IPAMBlock', 'IPAMHandle', 'IPAMConfig'] as const;

/** A tunnel handle of a renamed node, renamed; other handles unchanged. */
export function renameHandle(handle: string, renames: NodeRenames): string {
  for (const prefix of TUNNEL_HANDLE_PREFIXES) {
    if (!handle.startsWith(prefix)) continue;
    const renamed = renames.get(handle.slice(prefix.length));
    return renamed === undefined ? handle : prefix + renamed;
  }
  return handle;
}

const renameNode = (node: string, renames: NodeRenames): string => renames.get(node) ?? node;

function renameAttrs(
  attrs: Readonly<Record<string, string>> | undefined,
  renames: NodeRenames,
): Readonly<Record<string, string>> | undefined {
  if (attrs?.node === undefined) return attrs;
  return { ...attrs, node: renameNode(attrs.node, renames) };
}

/** A block with its affinity, owner `node` attributes and tunnel handles renamed. */
function renameBlock(block: AllocationBlock, renames: NodeRenames): AllocationBlock {
  const affinity =
    block.affinity?.startsWith('host:') === true
      ? `host:${renameNode(block.affinity.slice(5), renames)}`
      : block.affinity;
  return {
    ...block,
    ...(affinity !== undefined && { affinity }),
    attributes: block.attributes.map((a) => {
      const active = renameAttrs(a.activeOwnerAttrs, renames);
      const alternate = renameAttrs(a.alternateOwnerAttrs, renames);
      return {
        ...a,
        ...(a.handleId !== undefined && { handleId: renameHandle(a.handleId, renames) }),
        ...(active && { activeOwnerAttrs: active }),
        ...(alternate && { alternateOwnerAttrs: alternate }),
      };
    }),
  };
}

function renamed(kv: KVPair, renames: NodeRenames): NewKVPair {
  const key = kv.key;
  switch (key.kind) {
    case 'IPAMBlock':
      return { key, value: renameBlock(kv.value as AllocationBlock, renames) };
    case 'BlockAffinity':
      return { key: { ...key, host: renameNode(key.host, renames) }, value: kv.value };
    case 'IPAMHandle': {
      const handleId = renameHandle(key.handleId, renames);
      return { key: { ...key, handleId }, value: { ...(kv.value as object), handleId } as never };
    }
    default:
      return { key, value: kv.value };
  }
}

const entry = (kv: NewKVPair): Record<string, unknown> => ({
  Key: keyToPath(kv.key),
  Value: parseJson(encodeValue(kv.key.kind, kv.value as never)),
  TTL: 0,
});

const stripMeta = (v: { metadata: Record<string, unknown> }) => {
  const { resourceVersion: _rv, uid: _uid, ...metadata } = v.metadata;
  return { ...v, metadata };
};

/** Options of {@link exportDatastore}. */
export interface ExportOptions {
  /** Node renames applied to what is exported. */
  readonly renames?: NodeRenames;
  /**
   * Called as each of the eight kinds is read: `done` of `total` kinds, and a note of the objects
   * read so far.
   */
  readonly onProgress?: (done: number, total: number, note: string) => void;
}

/** The kinds an export reads, in order: the resources, the ClusterInformation, the IPAM data. */
const EXPORT_STEPS = RESOURCE_KINDS.length + 1 + IPAM_KINDS.length;

/**
 * `datastore migrate export`: the v3 resources (IPPool, IPReservation, Node, ClusterInformation)
 * as YAML documents separated by `---`, a `===` line, then the IPAM data as Calico's migration
 * JSON (`block_affinities`, `blocks`, `handles`, `config`; each `{Key, Value, TTL}` with the etcd
 * path and Calico's JSON). Node renames rewrite Node names, block affinities (value and key),
 * owner `node` attributes (active and alternate) and tunnel handles (all five prefixes, v6
 * included) in attributes and handle keys. Read-only.
 */
export async function exportDatastore(
  datastore: Datastore,
  options: ExportOptions = {},
): Promise<{ text: string; counts: Record<string, number> }> {
  const renames = options.renames ?? new Map<string, string>();
  let step = 0;
  let objects = 0;
  const stepDone = (n: number): void => {
    step++;
    objects += n;
    options.onProgress?.(step, EXPORT_STEPS, `${objects} objects`);
  };
  const targets = [...renames.values()];
  if (new Set(targets).size !== targets.length) {
    throw new CtlError('InvalidInput', 'two nodes are renamed to the same name');
  }
  const docs: string[] = [];
  const counts: Record<string, number> = {};
  for (const kind of RESOURCE_KINDS) {
    const { items } = await datastore.list({ kind });
    counts[kind] = items.length;
    stepDone(items.length);
    for (const kv of items) {
      let value = stripMeta(kv.value) as { metadata: { name: string } };
      if (kind === 'Node') {
        value = {
          ...value,
          metadata: { ...value.metadata, name: renameNode(value.metadata.name, renames) },
        };
      }
      docs.push(stringify({ apiVersion: 'projectcalico.org/v3', kind, ...value }));
    }
  }
  const ci = await readClusterInformation(datastore);
  stepDone(ci ? 1 : 0);
  if (ci) {
    docs.push(
      stringify({
        apiVersion: 'projectcalico.org/v3',
        kind: 'ClusterInformation',
        ...stripMeta(ci.value),
      }),
    );
  }
  const ipam: Record<string, unknown> = {};
  const lists: [string, 'BlockAffinity' | 'IPAMBlock' | 'IPAMHandle'][] = [
    ['block_affinities', 'BlockAffinity'],
    ['blocks', 'IPAMBlock'],
    ['handles', 'IPAMHandle'],
  ];
  for (const [field, kind] of lists) {
    const { items } = await datastore.list({ kind });
    counts[kind] = items.length;
    ipam[field] = items.map((kv) => entry(renamed(kv, renames)));
    stepDone(items.length);
  }
  // No stored config is exported as null; a store that cannot be read fails the export.
  const config = await datastore.get({ kind: 'IPAMConfig' }).catch((e: unknown) => {
    if (isIpamError(e, 'DoesNotExist')) return undefined;
    throw e;
  });
  counts.IPAMConfig = config ? 1 : 0;
  stepDone(counts.IPAMConfig);
  ipam.config = config ? entry(config) : null;
  const text = `${docs.join('---\n')}===\n${formatJson(ipam)}\n`;
  return { text, counts };
}

type Obj = { [k: string]: JsonValue };
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

function parseEntry(e: JsonValue, where: string, kinds: readonly Kind[]): NewKVPair {
  if (!isObj(e) || typeof e.Key !== 'string' || !('Value' in e)) {
    throw new CtlError('InvalidInput', `${where}: expected {Key, Value, TTL}`);
  }
  const key = pathToKey(e.Key);
  if (!key || !kinds.includes(key.kind)) {
    throw new CtlError('InvalidInput', `${where}: unexpected key ${JSON.stringify(e.Key)}`);
  }
  try {
    return { key, value: decodeValue(key, stringifyJson(e.Value)) };
  } catch (err) {
    throw new CtlError('InvalidInput', `${where}: ${(err as Error).message}`);
  }
}

/**
 * The largest export file `datastore migrate import` reads (256 MiB): every block and handle of a
 * cluster of thousands of nodes fits (a full /26 block is about 10 KiB), while a larger input is
 * refused before it is read whole or parsed.
 */
export const MAX_EXPORT_BYTES = 256 * 1024 * 1024;

/**
 * Parses an export file completely; `InvalidInput` naming the problem before any write: bad YAML
 * or JSON, an unsupported kind, a resource whose name, labels or annotations break Kubernetes'
 * limits (as `apply -f` checks them).
 */
export function parseExport(
  text: string,
  source: string,
): { resources: NewKVPair[]; ipam: NewKVPair[] } {
  const at = text.lastIndexOf('===\n');
  if (at < 0)
    throw new CtlError(
      'InvalidInput',
      `${source}: no IPAM resources specified in file (no === line)`,
    );
  const resources: NewKVPair[] = [];
  for (const doc of parseAllDocuments(text.slice(0, at))) {
    if (doc.errors.length > 0) {
      throw new CtlError(
        'InvalidInput',
        `${source}: bad YAML: ${(doc.errors[0]?.message ?? '').split('\n')[0]}`,
      );
    }
    const v: unknown = doc.toJS();
    if (v === null || v === undefined) continue;
    if (
      !isObj(v) ||
      typeof v.kind !== 'string' ||
      !isObj(v.metadata) ||
      typeof v.metadata.name !== 'string'
    ) {
      throw new CtlError('InvalidInput', `${source}: a resource without kind or metadata.name`);
    }
    const { apiVersion: _a, kind, ...value } = v;
    if (![...RESOURCE_KINDS, 'ClusterInformation'].includes(kind)) {
      throw new CtlError('InvalidInput', `${source}: unsupported kind ${kind}`);
    }
    try {
      validateObjectMeta(kind, v.metadata);
    } catch (e) {
      if (!isIpamError(e, 'InvalidArgument')) throw e;
      throw new CtlError('InvalidInput', `${source}: ${e.message}`, { cause: e });
    }
    resources.push({ key: { kind, name: v.metadata.name } as DatastoreKey, value: value as never });
  }
  let doc: JsonValue;
  try {
    doc = parseJson(text.slice(at + 4));
  } catch (e) {
    throw new CtlError(
      'InvalidInput',
      `${source}: IPAM section is not JSON: ${(e as Error).message}`,
    );
  }
  if (!isObj(doc)) throw new CtlError('InvalidInput', `${source}: IPAM section must be an object`);
  const ipam: NewKVPair[] = [];
  const lists: [string, Kind][] = [
    ['block_affinities', 'BlockAffinity'],
    ['blocks', 'IPAMBlock'],
    ['handles', 'IPAMHandle'],
  ];
  for (const [field, kind] of lists) {
    const list = doc[field] ?? [];
    if (!Array.isArray(list))
      throw new CtlError('InvalidInput', `${source}: ${field} must be a list`);
    list.forEach((e, i) => ipam.push(parseEntry(e, `${source}: ${field}[${i}]`, [kind])));
  }
  if (doc.config !== undefined && doc.config !== null) {
    ipam.push(parseEntry(doc.config, `${source}: config`, ['IPAMConfig']));
  }
  if (ipam.length === 0 && resources.length === 0) {
    throw new CtlError('InvalidInput', `${source}: no IPAM resources specified in file`);
  }
  return { resources, ipam };
}

/**
 * `datastore migrate import`: writes an export into an empty datastore (no pools, nodes,
 * reservations or IPAM data: otherwise `Refused`, nothing written). Resources first, then
 * affinities, blocks, handles and the IPAM config, each with `create`. The ClusterInformation
 * keeps the exported cluster GUID and is left locked (`datastoreReady: false`); unlock when done.
 * `onProgress` is called after each object written (`done` of `total`). A failed write stops the
 * import, saying how many were written.
 */
export async function importDatastore(
  datastore: Datastore,
  parsed: { resources: NewKVPair[]; ipam: NewKVPair[] },
  onProgress?: (done: number, total: number) => void,
): Promise<{ text: string }> {
  for (const kind of [...RESOURCE_KINDS, ...IPAM_KINDS]) {
    const { items } = await datastore.list({ kind });
    if (items.length > 0) {
      throw new CtlError(
        'Refused',
        `the destination datastore is not empty (it has ${kind} objects); refusing to import`,
      );
    }
  }
  let n = 0;
  const total = parsed.resources.length + parsed.ipam.length;
  const write = async (kv: NewKVPair): Promise<void> => {
    try {
      if (kv.key.kind === 'ClusterInformation') {
        const value = kv.value as { spec: Record<string, unknown> };
        const locked = { ...value, spec: { ...value.spec, datastoreReady: false } } as never;
        const current = await readClusterInformation(datastore);
        if (current) await datastore.update({ ...current, value: locked });
        else await datastore.create({ key: CLUSTER_INFORMATION_KEY, value: locked });
      } else await datastore.create(kv);
    } catch (e) {
      throw new CtlError(
        'Failed',
        `failed to import ${keyToPath(kv.key)} (${n} of ${total} written): ${(e as Error).message}`,
      );
    }
    n++;
    onProgress?.(n, total);
  };
  for (const kv of parsed.resources) await write(kv);
  for (const kv of parsed.ipam) await write(kv);
  return {
    text:
      `Successfully applied ${parsed.resources.length} resource(s)\n` +
      `Successfully applied ${parsed.ipam.length} IPAM resource(s)\n` +
      'The datastore is locked: run `netledgerctl datastore migrate unlock` when done.\n',
  };
}
