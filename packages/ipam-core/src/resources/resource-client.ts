import { withCasRetry } from '../cas-retry.js';
import type { Datastore, KVPair } from '../datastore/datastore.js';
import { IpamError, isIpamError } from '../errors.js';
import type { DatastoreKey, ListOptions, ValueByKind } from '../model/keys.js';
import type { IPPool, IPReservation, Node } from '../model/resources.js';
import type { CreationPorts } from './creation-metadata.js';
import { keepCreationMetadata, withCreationMetadata } from './creation-metadata.js';
import { createPoolHooks } from './pool-hooks.js';
import type { PoolHooksOptions } from './pool-hooks.js';
import { validateReservation } from './reservation-validation.js';
import { validateResourceName } from '../model/resource-name.js';
import { validateObjectMeta } from '../limits/object-limits.js';

/** Create, read, update and delete for one kind of Calico v3 resource. */
export interface ResourceClient<T> {
  /**
   * Validates and stores a new resource (name, labels and annotations within Kubernetes' limits
   * included); `AlreadyExists` if the name is taken.
   */
  create(r: T): Promise<T>;
  /** Reads one resource; `DoesNotExist` if absent. */
  get(name: string): Promise<T>;
  /** Every resource of the kind, in name order. */
  list(): Promise<T[]>;
  /**
   * Validates and replaces a resource. With `metadata.resourceVersion` it is a compare-and-swap
   * on it (`ConfigConflict` 'resource modified since read' if stale); without, the latest version
   * is replaced, retried on concurrent writes.
   */
  update(r: T): Promise<T>;
  /** Deletes a resource and returns its last state; `DoesNotExist` if absent. */
  delete(name: string): Promise<T>;
}

/** The resource kinds these clients serve. */
type ResourceKind = 'IPPool' | 'Node' | 'IPReservation';

/** What differs between kinds: validation, defaults, extra steps. Bad input must throw first. */
export interface ResourceHooks<T> {
  /** The value to store for a new resource. */
  forCreate(r: T): Promise<T>;
  /** The value to store when `next` replaces `current` (both as stored). */
  forUpdate(current: T, next: T): Promise<T>;
  /** What reads return for a stored value (before `resourceVersion` is added). */
  present(stored: T): T;
  /** Runs before a delete, with the latest stored value; may write (e.g. disable a pool). */
  beforeDelete?(current: KVPair): Promise<void>;
}

type Resource = { readonly metadata: { readonly name: string; readonly resourceVersion?: string } };

const stripVersion = <T extends Resource>(r: T): T => {
  const { resourceVersion: _rv, ...metadata } = r.metadata;
  return { ...r, metadata };
};

const conflict = (kind: string, name: string, cause?: unknown): IpamError =>
  new IpamError('ConfigConflict', `${kind} ${name}: resource modified since read`, {
    identifier: name,
    cause,
  });

/** A {@link ResourceClient} over the datastore for one kind, with the kind's hooks. */
function createResourceClient<K extends ResourceKind>(
  datastore: Datastore,
  kind: K,
  hooks: ResourceHooks<ValueByKind[K]>,
): ResourceClient<ValueByKind[K]> {
  type T = ValueByKind[K];
  const keyOf = (name: string): DatastoreKey<K> => ({ kind, name }) as unknown as DatastoreKey<K>;
  const present = (kv: KVPair<K>): T => {
    const shown = hooks.present(kv.value);
    return { ...shown, metadata: { ...shown.metadata, resourceVersion: kv.revision } };
  };
  // The name as Calico checks it, then labels and annotations within Kubernetes' limits.
  const nameOf = (r: T): string => {
    const name = validateResourceName(kind, r.metadata?.name);
    validateObjectMeta(kind, r.metadata);
    return name;
  };

  return {
    async create(r) {
      const key = keyOf(nameOf(r));
      const value = stripVersion(await hooks.forCreate(r));
      return present(await datastore.create({ key, value }));
    },
    async get(name) {
      return present(await datastore.get(keyOf(name)));
    },
    async list() {
      const { items } = await datastore.list<K>({ kind } as ListOptions<K>);
      return items.map(present);
    },
    async update(r) {
      const name = nameOf(r);
      const key = keyOf(name);
      const expected = r.metadata.resourceVersion;
      const attempt = async (): Promise<T> => {
        const current = await datastore.get(key);
        if (expected !== undefined && current.revision !== expected) throw conflict(kind, name);
        const value = stripVersion(await hooks.forUpdate(current.value, r));
        try {
          return present(await datastore.update({ key, value, revision: current.revision }));
        } catch (e) {
          if (expected !== undefined && isIpamError(e, 'UpdateConflict')) {
            throw conflict(kind, name, e);
          }
          throw e;
        }
      };
      return withCasRetry(attempt, { what: `update ${kind} ${name}` });
    },
    async delete(name) {
      const key = keyOf(name);
      return withCasRetry(
        async () => {
          let current = await datastore.get(key);
          if (hooks.beforeDelete) {
            await hooks.beforeDelete(current);
            current = await datastore.get(key);
          }
          await datastore.delete(key, { revision: current.revision });
          return present(current);
        },
        { what: `delete ${kind} ${name}` },
      );
    },
  };
}

/** Options of {@link createResourceClients}. */
export interface ResourceClientsOptions extends PoolHooksOptions {
  readonly datastore: Datastore;
  /** Where a new resource's `metadata.uid` comes from (default `Math.random`). */
  readonly random?: { next(): number };
}

/**
 * `hooks` with Calico's create-time metadata: a created resource gets a `uid` and a
 * `creationTimestamp` unless it has them, and an update keeps the stored ones.
 */
function withCreationStamps<T extends { readonly metadata: Resource['metadata'] }>(
  hooks: ResourceHooks<T>,
  ports: CreationPorts,
): ResourceHooks<T> {
  return {
    ...hooks,
    forCreate: async (r) => withCreationMetadata(await hooks.forCreate(r), ports),
    forUpdate: async (current, next) =>
      keepCreationMetadata(current, await hooks.forUpdate(current, next), ports),
  };
}

// A Node's spec and status are Go struct values, never absent: `{}` when empty.
const withNodeParts = (n: Node): Node => ({ ...n, spec: n.spec ?? {}, status: n.status ?? {} });

/** The resource clients of an IPAM client. */
export interface ResourceClients {
  readonly pools: ResourceClient<IPPool>;
  readonly nodes: ResourceClient<Node>;
  readonly reservations: ResourceClient<IPReservation>;
}

/**
 * Resource clients with Calico's validation and defaults. Every resource's name, labels and
 * annotations are held to Kubernetes' rules on create and update (a DNS-1123 name, label syntax,
 * annotations at most 256 KiB in total), and its encoded size to 1.5 MiB by the store. Every
 * created resource gets a `metadata.uid` (a UUID from `random`) and a `metadata.creationTimestamp` (from `clock`, whole
 * seconds) as Calico's clientv3 gives it, kept on update. Pools: validated (including the overlap
 * check against the stored pools), stored with defaults and marked `Allocatable=True`, read with
 * defaults. Nodes: name checked, stored with `spec` and `status` (`{}` when empty). Reservations:
 * every `reservedCIDRs` entry must be a strict CIDR or an address. Rejected input writes nothing.
 * Reads carry `metadata.resourceVersion`.
 */
export function createResourceClients(options: ResourceClientsOptions): ResourceClients {
  const { datastore } = options;
  const ports: CreationPorts = {
    clock: options.clock ?? { now: () => Date.now() },
    random: options.random ?? { next: () => Math.random() },
  };
  return {
    pools: createResourceClient(
      datastore,
      'IPPool',
      withCreationStamps(createPoolHooks(options), ports),
    ),
    nodes: createResourceClient(
      datastore,
      'Node',
      withCreationStamps<Node>(
        {
          forCreate: async (n) => withNodeParts(n),
          forUpdate: async (_current, next) => withNodeParts(next),
          present: (n) => n,
        },
        ports,
      ),
    ),
    reservations: createResourceClient(
      datastore,
      'IPReservation',
      withCreationStamps<IPReservation>(
        {
          forCreate: async (r) => validateReservation(r),
          forUpdate: async (_current, next) => validateReservation(next),
          present: (r) => r,
        },
        ports,
      ),
    ),
  };
}
