import type { DatastoreKey, Kind, ListOptions, ValueByKind } from '../model/keys.js';

/** A stored object with the revision it was read at (Calico's `model.KVPair`). */
export interface KVPair<K extends Kind = Kind> {
  readonly key: DatastoreKey<K>;
  readonly value: ValueByKind[K];
  /** Opaque; the compare-and-swap token (etcd mod revision, Kubernetes resourceVersion). */
  readonly revision: string;
  /** Stores that have object identities (Kubernetes) set it; deletes check it. */
  readonly uid?: string;
}

/** What `create` and `apply` take: no revision yet. */
export interface NewKVPair<K extends Kind = Kind> {
  readonly key: DatastoreKey<K>;
  readonly value: ValueByKind[K];
}

/**
 * One write of a {@link Datastore.transact} transaction, with the same compare-and-swap rules as
 * the single-object call of the same name.
 */
export type TransactionWrite =
  | { readonly op: 'create'; readonly kv: NewKVPair }
  | { readonly op: 'update'; readonly kv: KVPair }
  | { readonly op: 'delete'; readonly key: DatastoreKey; readonly options?: DeleteOptions };

/** Preconditions for `delete`. */
export interface DeleteOptions {
  /** Delete only if the object is still at this revision (otherwise `UpdateConflict`). */
  readonly revision?: string;
  readonly uid?: string;
}

/** The result of `list`: matching objects in the store's stable order, and the store revision. */
export interface ListResult<K extends Kind = Kind> {
  readonly items: KVPair<K>[];
  /** The store revision the list was read at; a watch from it sees every later change. */
  readonly revision: string;
}

/** One change seen by a watch. */
export type WatchEvent =
  | { readonly type: 'added' | 'modified'; readonly kv: KVPair; readonly revision: string }
  | {
      readonly type: 'deleted';
      readonly key: DatastoreKey;
      readonly previous?: KVPair;
      readonly revision: string;
    };

/** Options for `watch`. */
export interface WatchOptions {
  /** Deliver changes made after this store revision; default: changes from now on. */
  readonly revision?: string;
  readonly signal?: AbortSignal;
}

/**
 * A stream of changes. Iteration ends when the signal aborts or `close()` is called; it throws
 * `WatchExpired` when the start revision has been compacted away.
 */
export interface WatchStream extends AsyncIterable<WatchEvent> {
  /**
   * Resolves once the stream's start revision is fixed: every change committed after that is
   * delivered. Never rejects (a failure to watch surfaces from iteration). Wait on it, not on a
   * timer, before writing what a watch "from now" must see.
   */
  readonly established: Promise<void>;
  close(): void;
}

/**
 * The storage port every IPAM write goes through (Calico's backend client). Writes are
 * compare-and-swap on `revision`; errors are `IpamError` with codes `AlreadyExists`,
 * `DoesNotExist`, `UpdateConflict`, `CorruptValue` (naming the key) or `Unavailable`.
 */
export interface Datastore {
  /** Creates an object; `AlreadyExists` if the key holds one. */
  create<K extends Kind>(kv: NewKVPair<K>): Promise<KVPair<K>>;
  /** Replaces an object if it is still at `kv.revision`: else `UpdateConflict`, or `DoesNotExist`. */
  update<K extends Kind>(kv: KVPair<K>): Promise<KVPair<K>>;
  /** Writes unconditionally (upsert). Not for IPAM allocation state, which is always CAS. */
  apply<K extends Kind>(kv: NewKVPair<K>): Promise<KVPair<K>>;
  /** Deletes an object, optionally only at a revision; `DoesNotExist` if absent. */
  delete(key: DatastoreKey, options?: DeleteOptions): Promise<void>;
  /** Reads one object; `DoesNotExist` if absent. */
  get<K extends Kind>(key: DatastoreKey<K>): Promise<KVPair<K>>;
  /** Lists matching objects in a stable order (etcd key order for etcd-style stores). */
  list<K extends Kind>(options: ListOptions<K>): Promise<ListResult<K>>;
  /**
   * Several lists read together, at one store revision, in one round trip where the store can
   * (etcd: one read-only transaction). Optional: callers fall back to separate `list` calls.
   * Results are in the order of `options`.
   */
  listMany?(options: readonly ListOptions[]): Promise<ListResult[]>;
  /**
   * Several compare-and-swap writes applied together or not at all, in one durable write (etcd:
   * one transaction; the file store: one replacement of its file). Results are in the order of
   * `writes`: the object as written, undefined for a delete. When a precondition fails nothing is
   * written and the error is the one the first failing write would raise alone (`AlreadyExists`,
   * `DoesNotExist`, `UpdateConflict`, naming its key); `Unavailable` leaves the outcome unknown
   * (all or none applied). Two writes to one key are `InvalidArgument`. Optional: Kubernetes has
   * no multi-object transaction, and callers write one object at a time where it is absent.
   */
  transact?(writes: readonly TransactionWrite[]): Promise<(KVPair | undefined)[]>;
  /** Watches matching objects, from a revision when given. */
  watch(options: ListOptions, watchOptions?: WatchOptions): WatchStream;
  /**
   * Stores with label-indexed affinities (Kubernetes) add the host, type and version labels to
   * a host's affinities written without them; stores without labels leave it out.
   */
  upgradeAffinityLabels?(host: string): Promise<void>;
  /** Releases connections and handles; further calls fail. */
  close(): Promise<void>;
}
