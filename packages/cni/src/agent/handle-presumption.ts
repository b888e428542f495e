// How the node agent answers an ADD without reading the store: ADD first reads the attachment's
// handle, so that a repeated ADD gets back what it holds; almost always there is no such handle
// (one handle per container). The agent presumes it absent, and the handle's own create, the ADD's
// first write to it, which fails AlreadyExists if it was there, checks the presumption.
import { AsyncLocalStorage } from 'node:async_hooks';
import { IpamError, isIpamError } from '@netledger/ipam-core';
import type { Datastore, DatastoreKey, Kind, TransactionWrite } from '@netledger/ipam-core';
import { forwardingDatastore, refusesKey } from '@netledger/ipam-core/adapter';

/** One request's presumption that a handle does not exist, and what became of it. */
export interface HandlePresumption {
  readonly handleId: string;
  /** A read of the handle was answered "does not exist" from the presumption. */
  consulted: boolean;
  /** `confirmed`: the handle's create succeeded; `refuted`: it already existed. */
  outcome: 'untested' | 'confirmed' | 'refuted';
}

/** A presumption, or (not `presumed`) only a watch on the handle's first create. */
interface Tracked extends HandlePresumption {
  readonly presumed: boolean;
}

/** Thrown by the handle's create when the presumed-absent handle exists: the request is redone. */
class PresumptionRefuted extends Error {
  override readonly name = 'PresumptionRefuted';
}

/** A datastore that presumes, within {@link PresumingDatastore.presume}, one handle absent. */
export interface PresumingDatastore {
  readonly datastore: Datastore;
  /**
   * Runs `work` (and everything it starts) with `handleId` presumed absent: reads of that handle
   * answer `DoesNotExist` without asking the store (marking the presumption consulted), and its
   * first create decides it (`confirmed` when it succeeds; when the store answers AlreadyExists
   * the create throws, so nothing is built on the refuted read, and the presumption is `refuted`).
   * Requests running outside `presume`, or for another handle, are not affected.
   */
  presume<T>(
    handleId: string,
    work: () => Promise<T>,
  ): Promise<{ value: T; presumption: HandlePresumption }>;
  /**
   * Runs `work` with nothing presumed, and says whether it created `handleId` (its first create
   * of that handle succeeded): whether what the handle holds afterwards is work's own.
   */
  observe<T>(handleId: string, work: () => Promise<T>): Promise<{ value: T; created: boolean }>;
}

/** Wraps `inner` (the store an agent's IPAM client uses) with {@link PresumingDatastore}. */
export function createPresumingDatastore(inner: Datastore): PresumingDatastore {
  const current = new AsyncLocalStorage<Tracked>();
  /** The presumption (or watch) on `key`, while its first create is still to come. */
  const trackedFor = (key: DatastoreKey): Tracked | undefined => {
    const p = current.getStore();
    return p && p.outcome === 'untested' && key.kind === 'IPAMHandle' && key.handleId === p.handleId
      ? p
      : undefined;
  };
  /**
   * Runs the first create of a presumed-absent handle, which decides the presumption; in a
   * transaction, only an AlreadyExists naming the handle refutes it.
   */
  const deciding = async <T>(
    p: Tracked,
    create: () => Promise<T>,
    inTransaction = false,
  ): Promise<T> => {
    try {
      const created = await create();
      p.outcome = 'confirmed';
      return created;
    } catch (e) {
      if (!isIpamError(e, 'AlreadyExists')) throw e;
      if (inTransaction && !refusesKey(e, { kind: 'IPAMHandle', handleId: p.handleId })) throw e;
      p.outcome = 'refuted';
      if (!p.presumed) throw e;
      throw new PresumptionRefuted(`handle ${p.handleId} exists: the request is redone`);
    }
  };
  const transact = inner.transact?.bind(inner);
  const datastore: Datastore = {
    ...forwardingDatastore(inner),
    async get<K extends Kind>(key: DatastoreKey<K>) {
      const p = trackedFor(key);
      if (!p?.presumed) return inner.get(key);
      p.consulted = true;
      throw new IpamError('DoesNotExist', `handle ${p.handleId} presumed absent`);
    },
    async create(kv) {
      const p = trackedFor(kv.key);
      return p ? deciding(p, () => inner.create(kv)) : inner.create(kv);
    },
    ...(transact && {
      async transact(writes: readonly TransactionWrite[]) {
        const p = writes
          .map((w) => (w.op === 'create' ? trackedFor(w.kv.key) : undefined))
          .find((x) => x !== undefined);
        return p ? deciding(p, () => transact(writes), true) : transact(writes);
      },
    }),
  };
  return {
    datastore,
    async presume(handleId, work) {
      const tracked: Tracked = { handleId, consulted: false, outcome: 'untested', presumed: true };
      const value = await current.run(tracked, work);
      const { presumed: _, ...presumption } = tracked;
      return { value, presumption };
    },
    async observe(handleId, work) {
      const tracked: Tracked = { handleId, consulted: false, outcome: 'untested', presumed: false };
      const value = await current.run(tracked, work);
      return { value, created: tracked.outcome === 'confirmed' };
    },
  };
}
