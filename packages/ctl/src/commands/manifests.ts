import { parseAllDocuments } from 'yaml';
import {
  DEFAULT_IPAM_CONFIG,
  isIpamError,
  unknownResourceFields,
  validateObjectMeta,
  validatePool,
  validateReservation,
} from '@netledger/ipam-core';
import type {
  Datastore,
  IPPool,
  IPReservation,
  IpamClient,
  IpamConfig,
  Node,
  ResourceClient,
} from '@netledger/ipam-core';
import { CtlError } from '../ctl-error.js';
import type { OutputFormat } from '../output/render-output.js';
import { renderOutput } from '../output/render-output.js';
import type { ResourceKind, ResourceObject } from './resource-kind.js';
import { RESOURCE_KINDS, ipamConfigResource, withTypeMeta } from './resource-kind.js';
import { renderResourceTable } from './resource-table.js';

/** The kinds manifests may hold. */
type ManifestKind = ResourceKind;

/** One parsed manifest document. */
export interface Manifest {
  readonly kind: ManifestKind;
  readonly name: string;
  readonly resource: { metadata: { name: string }; spec?: Record<string, unknown> };
  /** Where it came from: the file, and the document or list item within it. */
  readonly where: string;
}

/**
 * The largest manifest file read (16 MiB): a file of every resource a cluster holds fits, while
 * a larger one is refused before it is read whole or parsed.
 */
export const MAX_MANIFEST_BYTES = 16 * 1024 * 1024;

/** What to do with manifests (calicoctl's verbs). */
export type ManifestAction = 'create' | 'apply' | 'replace' | 'delete' | 'get';

const KINDS = RESOURCE_KINDS;
const API_VERSION = 'projectcalico.org/v3';
/** The fields of a list document (Kubernetes' `metav1.List`, Calico's `IPPoolList`, ...). */
const LIST_FIELDS = ['apiVersion', 'kind', 'metadata', 'items'];

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * The kind of the items a list document holds: `undefined` for Kubernetes' untyped `List`, the
 * kind for Calico's typed lists (`IPPoolList` holds IPPools). `InvalidInput` for another `...List`.
 */
function listItemKind(kind: string, where: string): ManifestKind | undefined {
  if (kind === 'List') return undefined;
  const item = KINDS.find((k) => `${k}List` === kind);
  if (item) return item;
  throw new CtlError(
    'InvalidInput',
    `${where}: unsupported kind ${JSON.stringify(kind)} (${KINDS.map((k) => `${k}List`).join(', ')} or List)`,
  );
}

/** The resources of a list document (`kind: IPPoolList` or `List`, with `items`). */
function fromList(doc: Record<string, unknown>, kind: string, where: string): Manifest[] {
  const itemKind = listItemKind(kind, where);
  if (itemKind && doc.apiVersion !== undefined && doc.apiVersion !== API_VERSION) {
    throw new CtlError(
      'InvalidInput',
      `${where}: unsupported apiVersion ${JSON.stringify(doc.apiVersion)} (${API_VERSION})`,
    );
  }
  // Decoded strictly, as calicoctl decodes a list into its Go type.
  const unknown = Object.keys(doc).filter((f) => !LIST_FIELDS.includes(f));
  if (unknown.length > 0) {
    throw new CtlError(
      'InvalidInput',
      `${where}: ${kind}: unknown field${unknown.length > 1 ? 's' : ''} ${unknown.map((f) => JSON.stringify(f)).join(', ')}`,
    );
  }
  if (doc.metadata !== undefined && !isObject(doc.metadata)) {
    throw new CtlError('InvalidInput', `${where}: ${kind} metadata must be a mapping`);
  }
  if (!Array.isArray(doc.items))
    throw new CtlError('InvalidInput', `${where}: ${kind} without items`);
  return doc.items.flatMap((item: unknown, i) => {
    const at = `${where} item ${i}`;
    if (!itemKind) return toManifest(item, at);
    if (isObject(item) && item.kind !== undefined && item.kind !== itemKind) {
      throw new CtlError(
        'InvalidInput',
        `${at}: kind ${JSON.stringify(item.kind)} in a ${kind} (only ${itemKind})`,
      );
    }
    // An item of a typed list may leave its kind to the list.
    return toManifest(isObject(item) ? { kind: itemKind, ...item } : item, at);
  });
}

function toManifest(doc: unknown, where: string): Manifest[] {
  // A sequence of resources, as calicoctl reads (and writes, for `get` of several names).
  if (Array.isArray(doc)) return doc.flatMap((item, i) => toManifest(item, `${where} item ${i}`));
  if (!isObject(doc)) throw new CtlError('InvalidInput', `${where}: expected a resource mapping`);
  if (typeof doc.kind === 'string' && doc.kind.endsWith('List'))
    return fromList(doc, doc.kind, where);
  if (doc.apiVersion !== undefined && doc.apiVersion !== API_VERSION) {
    throw new CtlError(
      'InvalidInput',
      `${where}: unsupported apiVersion ${JSON.stringify(doc.apiVersion)} (${API_VERSION})`,
    );
  }
  const kind = doc.kind as ManifestKind;
  if (!KINDS.includes(kind)) {
    throw new CtlError(
      'InvalidInput',
      `${where}: unsupported kind ${JSON.stringify(doc.kind)} (${KINDS.join(', ')})`,
    );
  }
  const metadata = doc.metadata;
  if (!isObject(metadata) || typeof metadata.name !== 'string' || metadata.name === '') {
    throw new CtlError('InvalidInput', `${where}: ${kind} needs metadata.name`);
  }
  if (doc.spec !== undefined && !isObject(doc.spec)) {
    throw new CtlError('InvalidInput', `${where}: ${kind} spec must be a mapping`);
  }
  if (kind === 'IPAMConfiguration' && metadata.name !== 'default') {
    throw new CtlError('InvalidInput', `${where}: the IPAMConfiguration must be named default`);
  }
  const what = `${where}: ${kind} ${JSON.stringify(metadata.name)}`;
  // calicoctl decodes strictly: a field its Go type lacks is an error, not silently kept.
  const unknown = unknownResourceFields(kind, doc);
  if (unknown.length > 0) {
    throw new CtlError(
      'InvalidInput',
      `${what}: unknown field${unknown.length > 1 ? 's' : ''} ${unknown.map((f) => JSON.stringify(f)).join(', ')} (not in projectcalico.org/v3 ${kind})`,
    );
  }
  const { apiVersion: _a, kind: _k, ...resource } = doc;
  return [
    {
      kind,
      name: metadata.name,
      resource: resource as Manifest['resource'],
      where,
    },
  ];
}

/**
 * Parses a manifest file: YAML documents separated by `---`, or JSON; each document a resource,
 * a list of them (Calico's typed lists, `IPPoolList` with `items` as `get -o yaml` writes it, or
 * Kubernetes' `List`), or a sequence of resources (what calicoctl writes for several names).
 * Kinds: IPPool, IPReservation, Node, IPAMConfiguration, decoded strictly as calicoctl does (a
 * field the Calico v3 type lacks, such as `spec.cidrr`, is an error). `InvalidInput` naming the
 * document (and the object and field) for anything else, or for a file of no resources unless
 * `allowEmpty` (calicoctl's `--skip-empty`), before anything is written.
 */
export function parseManifests(
  text: string,
  source: string,
  options: { readonly allowEmpty?: boolean } = {},
): Manifest[] {
  const docs = parseAllDocuments(text);
  const out: Manifest[] = [];
  docs.forEach((d, i) => {
    if (d.errors.length > 0) {
      throw new CtlError(
        'InvalidInput',
        `${source}: not valid YAML or JSON: ${(d.errors[0]?.message ?? '').split('\n')[0]}`,
      );
    }
    const value: unknown = d.toJS();
    if (value === null || value === undefined) return;
    out.push(...toManifest(value, docs.length > 1 ? `${source} document ${i + 1}` : source));
  });
  if (out.length === 0 && options.allowEmpty !== true) {
    throw new CtlError('InvalidInput', `${source}: no resources found`);
  }
  return out;
}

function ipamConfigFromSpec(spec: Record<string, unknown> = {}): IpamConfig {
  return {
    strictAffinity:
      (spec.strictAffinity as boolean | undefined) ?? DEFAULT_IPAM_CONFIG.strictAffinity,
    autoAllocateBlocks:
      (spec.autoAllocateBlocks as boolean | undefined) ?? DEFAULT_IPAM_CONFIG.autoAllocateBlocks,
    maxBlocksPerHost:
      (spec.maxBlocksPerHost as number | undefined) ?? DEFAULT_IPAM_CONFIG.maxBlocksPerHost,
    ipCooldownSeconds:
      (spec.ipCooldownSeconds as number | undefined) ?? DEFAULT_IPAM_CONFIG.ipCooldownSeconds,
    kubeVirtVMAddressPersistence:
      (spec.kubeVirtVMAddressPersistence as
        IpamConfig['kubeVirtVMAddressPersistence'] | undefined) ??
      DEFAULT_IPAM_CONFIG.kubeVirtVMAddressPersistence,
  };
}

/**
 * Checks what can be checked before any write: every resource's name, labels and annotations
 * against Kubernetes' limits (for create, apply and replace), pool and reservation validation
 * (create and apply).
 */
async function precheck(ipam: IpamClient, action: ManifestAction, items: readonly Manifest[]) {
  if (action !== 'create' && action !== 'apply' && action !== 'replace') return;
  for (const m of items) {
    try {
      validateObjectMeta(m.kind, m.resource.metadata);
    } catch (e) {
      if (!isIpamError(e, 'InvalidArgument')) throw e;
      throw new CtlError('InvalidInput', `${m.where}: ${e.message}`, { cause: e });
    }
  }
  if (action === 'replace') return;
  const stored = await ipam.pools.list();
  const pools: IPPool[] = [];
  for (const m of items) {
    if (m.kind === 'IPPool') {
      const pool = m.resource as unknown as IPPool;
      const others = stored.filter((p) => p.metadata.name !== m.name);
      validatePool(pool, [...others, ...pools]);
      pools.push(pool);
    } else if (m.kind === 'IPReservation') {
      validateReservation(m.resource as unknown as IPReservation);
    }
  }
}

type Resource = IPPool | Node | IPReservation;

async function runOne(
  ctx: { ipam: IpamClient; datastore: Datastore },
  action: ManifestAction,
  m: Manifest,
): Promise<ResourceObject | undefined> {
  const { ipam, datastore } = ctx;
  if (m.kind === 'IPAMConfiguration') {
    const exists = await datastore.get({ kind: 'IPAMConfig' }).then(
      () => true,
      (e: unknown) => {
        if (isIpamError(e, 'DoesNotExist')) return false;
        throw e;
      },
    );
    switch (action) {
      case 'get':
        return ipamConfigResource(await ipam.getIpamConfig());
      case 'delete':
        if (!exists) throw new CtlError('Failed', 'IPAMConfiguration default does not exist');
        await datastore.delete({ kind: 'IPAMConfig' });
        return undefined;
      case 'create':
      case 'replace':
      case 'apply':
        if (action === 'create' && exists) {
          throw new CtlError('Failed', 'IPAMConfiguration default already exists');
        }
        if (action === 'replace' && !exists) {
          throw new CtlError('Failed', 'IPAMConfiguration default does not exist');
        }
        await ipam.setIpamConfig(ipamConfigFromSpec(m.resource.spec));
        return undefined;
    }
  }
  const client = (
    m.kind === 'IPPool' ? ipam.pools : m.kind === 'Node' ? ipam.nodes : ipam.reservations
  ) as ResourceClient<Resource>;
  const resource = m.resource as unknown as Resource;
  switch (action) {
    case 'get':
      return await client.get(m.name);
    case 'delete':
      await client.delete(m.name);
      return undefined;
    case 'create':
      await client.create(resource);
      return undefined;
    case 'replace':
      await client.update(resource);
      return undefined;
    case 'apply': {
      const exists = await client.get(m.name).then(
        () => true,
        (e: unknown) => {
          if (isIpamError(e, 'DoesNotExist')) return false;
          throw e;
        },
      );
      const { resourceVersion: _rv, ...metadata } = resource.metadata;
      if (exists) await client.update({ ...resource, metadata });
      else await client.create(resource);
      return undefined;
    }
  }
}

const describe = (m: Manifest): string => `${m.kind} ${JSON.stringify(m.name)}`;

/**
 * Where a run of several resources stopped when item `failed` failed: the ones done before it
 * (held by the store) and the ones not attempted, e.g.
 * `[applied: IPPool "a"; not attempted: IPPool "c", Node "n1"]`.
 */
function progress(action: ManifestAction, items: readonly Manifest[], failed: number): string {
  const done = items.slice(0, failed).map(describe);
  const rest = items.slice(failed + 1).map(describe);
  const parts = [
    done.length > 0 ? `${PAST[action]}: ${done.join(', ')}` : `nothing ${PAST[action]}`,
  ];
  if (rest.length > 0) parts.push(`not attempted: ${rest.join(', ')}`);
  return `[${parts.join('; ')}]`;
}

const PAST: Record<ManifestAction, string> = {
  create: 'created',
  apply: 'applied',
  replace: 'replaced',
  delete: 'deleted',
  get: 'read',
};

/**
 * `create|apply|replace|delete|get -f FILE`: runs the action on each manifest in order.
 * Before anything is written: every resource's name, labels and annotations are held to
 * Kubernetes' rules (annotations at most 256 KiB), and pools and reservations validated (against
 * the stored pools and the file's earlier pools). A later failure stops there: for a file of several resources the
 * error names the one that failed, every one done before it and every one not attempted (the
 * store holds exactly the ones done). `get` renders the resources (`format`, YAML by default):
 * one resource alone, several as a `List`, and `table`/`wide` as a listing per kind.
 */
export async function runManifests(
  ctx: { ipam: IpamClient; datastore: Datastore },
  run: { action: ManifestAction; items: readonly Manifest[]; format?: OutputFormat },
): Promise<{ text: string }> {
  const { action, items, format = 'yaml' } = run;
  await precheck(ctx.ipam, action, items);
  const got: { kind: ResourceKind; resource: ResourceObject }[] = [];
  const counts = new Map<string, number>();
  for (const [i, m] of items.entries()) {
    try {
      const r = await runOne(ctx, action, m);
      if (r) got.push({ kind: m.kind, resource: r });
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      throw new CtlError(
        'Failed',
        `failed to ${action} ${describe(m)}: ${msg}${items.length > 1 ? ` ${progress(action, items, i)}` : ''}`,
        { cause: e },
      );
    }
    counts.set(m.kind, (counts.get(m.kind) ?? 0) + 1);
  }
  if (action === 'get') {
    const typed = got.map((g) => withTypeMeta(g.kind, g.resource));
    const data =
      typed.length === 1 ? typed[0] : { apiVersion: API_VERSION, kind: 'List', items: typed };
    // A listing per kind, in the order the kinds first appear, as calicoctl prints them.
    const tables = (wide: boolean): string =>
      [...new Set(got.map((g) => g.kind))]
        .map((kind) =>
          renderResourceTable(
            kind,
            got.filter((g) => g.kind === kind).map((g) => g.resource),
            wide,
          ),
        )
        .join('\n');
    return { text: renderOutput(format, data, tables) };
  }
  const text = [...counts]
    .map(([kind, n]) => `Successfully ${PAST[action]} ${n} '${kind}' resource(s)\n`)
    .join('');
  return { text };
}
