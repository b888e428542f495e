import type { Datastore, TransactionWrite } from '@netledger/ipam-core';
import type { CrashPoint } from './worker-plan.js';

/**
 * `ds`, except that the `point.nth` write of `point.kind` by `point.op` SIGKILLs this process just
 * before it is sent or just after the store acknowledged it, counting only writes made
 * while the worker is in `point.during`: a crash at a chosen point of an
 * assign (block update), a handle write, a block claim (affinity or block create) or an affinity
 * release (affinity delete). A transaction holding such a write is that write: the kill comes
 * before it is sent or after it applied, all of it.
 */
export function crashAtWrite(
  ds: Datastore,
  point: CrashPoint,
  during: () => CrashPoint['during'],
): Datastore {
  let seen = 0;
  const die = (): never => {
    process.kill(process.pid, 'SIGKILL');
    throw new Error('unreachable: SIGKILL sent');
  };
  const hook = async <T>(
    kind: string,
    op: CrashPoint['op'],
    write: () => Promise<T>,
  ): Promise<T> => {
    if (kind !== point.kind || op !== point.op || during() !== point.during) return write();
    if (++seen !== point.nth) return write();
    if (point.when === 'before') die();
    const r = await write();
    die();
    return r;
  };
  const transact = ds.transact?.bind(ds);
  return {
    ...(transact && {
      transact: (writes: readonly TransactionWrite[]) => {
        const match = writes.find(
          (w) => (w.op === 'delete' ? w.key : w.kv.key).kind === point.kind && w.op === point.op,
        );
        const kind = match ? point.kind : '';
        return hook(kind, point.op, () => transact(writes));
      },
    }),
    create: (kv) => hook(kv.key.kind, 'create', () => ds.create(kv)),
    update: (kv) => hook(kv.key.kind, 'update', () => ds.update(kv)),
    apply: (kv) => ds.apply(kv),
    delete: (key, o) => hook(key.kind, 'delete', () => ds.delete(key, o)),
    get: (key) => ds.get(key),
    list: (o) => ds.list(o),
    watch: (o, w) => ds.watch(o, w),
    close: () => ds.close(),
  };
}
