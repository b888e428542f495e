import { parseAllDocuments } from 'yaml';
import {
  DEFAULT_IPAM_CONFIG,
  isIpamError,
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
import { withTypeMeta } from './type-meta.js';

/** The kinds manifests may hold. */
export type ManifestKind = 'IPPool' | 'IPReservation' | 'Node' | 'IPAMConfiguration';

/** One parsed manifest document. */
export interface Manifest {
  readonly kind: ManifestKind;
  readonly name: string;
  readonly resource: { metadata: { name: string }; spec?: Record<string, unknown> };
}

/** What to do with manifests (calicoctl's verbs). */
export type ManifestAction = 'create' | 'apply' | 'replace' | 'delete' | 'get';

const KINDS: readonly ManifestKind[] = ['IPPool', 'IPReservation', 'Node', 'IPAMConfiguration'];

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

function toManifest(doc: unknown, where: string): Manifest[] {
  if (!isObject(doc)) throw new CtlError('InvalidInput', `${where}: expected a resource mapping`);
  if (doc.kind === 'List' || (typeof doc.kind === 'string' && doc.kind.endsWith('List'))) {
    if (!Array.isArray(doc.items))
      throw new CtlError('InvalidInput', `${where}: List without items`);
    return doc.items.flatMap((item, i) => toManifest(item, `${where} item ${i}`));
  }
  if (doc.apiVersion !== undefined && doc.apiVersion !== 'projectcalico.org/v3') {
    throw new CtlError(
      'InvalidInput',
      `${where}: unsupported apiVersion ${JSON.stringify(doc.apiVersion)} (projectcalico.org/v3)`,
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
  const { apiVersion: _a, kind: _k, ...resource } = doc;
  return [
    {
      kind,
      name: metadata.name,
      resource: resource as Manifest['resource'],
    },
  ];
}

/**
 * Parses a manifest file: YAML documents separated by `---`, or JSON (a resource or a `List`).
 * Kinds: IPPool, IPReservation, Node, IPAMConfiguration. `InvalidInput` naming the document for
 * anything else, before anything is written.
 */
export function parseManifests(text: string, source: string): Manifest[] {
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
  if (out.length === 0) throw new CtlError('InvalidInput', `${source}: no resources found`);
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

function ipamConfigManifest(c: IpamConfig): Record<string, unknown> {
  return withTypeMeta('IPAMConfiguration', { metadata: { name: 'default' }, spec: { ...c } });
}

/** Checks what can be checked before any write: pool and reservation validation. */
async function precheck(ipam: IpamClient, action: ManifestAction, items: readonly Manifest[]) {
  if (action !== 'create' && action !== 'apply') return;
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
): Promise<Record<string, unknown> | undefined> {
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
        return ipamConfigManifest(await ipam.getIpamConfig());
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
      return withTypeMeta(m.kind, await client.get(m.name));
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

const PAST: Record<ManifestAction, string> = {
  create: 'created',
  apply: 'applied',
  replace: 'replaced',
  delete: 'deleted',
  get: 'read',
};

/**
 * `create|apply|replace|delete|get -f FILE`: runs the action on each manifest in order.
 * Pools and reservations are validated (against the stored pools and the file's earlier pools)
 * before anything is written. A later failure stops there: the error names the resource and how
 * many were done before it. `get` renders the resources (`format`, YAML by default).
 */
export async function runManifests(
  ctx: { ipam: IpamClient; datastore: Datastore },
  run: { action: ManifestAction; items: readonly Manifest[]; format?: OutputFormat },
): Promise<{ text: string }> {
  const { action, items, format = 'yaml' } = run;
  await precheck(ctx.ipam, action, items);
  const got: Record<string, unknown>[] = [];
  const counts = new Map<string, number>();
  let done = 0;
  for (const m of items) {
    try {
      const r = await runOne(ctx, action, m);
      if (r) got.push(r);
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      throw new CtlError(
        'Failed',
        `failed to ${action} ${m.kind} ${JSON.stringify(m.name)}: ${msg}${done > 0 ? ` (${done} resource(s) before it were ${PAST[action]})` : ''}`,
        { cause: e },
      );
    }
    done++;
    counts.set(m.kind, (counts.get(m.kind) ?? 0) + 1);
  }
  if (action === 'get') {
    const data =
      got.length === 1 ? got[0] : { apiVersion: 'projectcalico.org/v3', kind: 'List', items: got };
    return { text: renderOutput(format === 'table' ? 'yaml' : format, data, () => '') };
  }
  const text = [...counts]
    .map(([kind, n]) => `Successfully ${PAST[action]} ${n} '${kind}' resource(s)\n`)
    .join('');
  return { text };
}
