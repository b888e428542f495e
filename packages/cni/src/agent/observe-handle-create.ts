import type { Datastore, TransactionWrite } from '@netledger/ipam-core';
import { forwardingDatastore } from '@netledger/ipam-core/adapter';

/** Whether one request created a handle, seen from the store it writes through. */
export interface HandleCreateObserver {
  /** `ds` with its successful creates of the handle noted (a create, or one in a transaction). */
  wrap(ds: Datastore): Datastore;
  /** True once a create of the handle succeeded through a wrapped store. */
  created(): boolean;
}

/**
 * Notes whether a request created handle `handleId`: an ADD that did allocated for it (a repeated
 * ADD finds the handle there and creates nothing), which is what the node agent takes back when
 * the ADD's client went away before its answer. Passes every call on unchanged.
 */
export function observeHandleCreate(handleId: string): HandleCreateObserver {
  let created = false;
  const isHandle = (w: TransactionWrite): boolean =>
    w.op === 'create' && w.kv.key.kind === 'IPAMHandle' && w.kv.key.handleId === handleId;
  return {
    wrap(ds) {
      const transact = ds.transact?.bind(ds);
      return {
        ...forwardingDatastore(ds),
        async create(kv) {
          const written = await ds.create(kv);
          if (isHandle({ op: 'create', kv })) created = true;
          return written;
        },
        ...(transact && {
          async transact(writes: readonly TransactionWrite[]) {
            const results = await transact(writes);
            if (writes.some(isHandle)) created = true;
            return results;
          },
        }),
      };
    },
    created: () => created,
  };
}
