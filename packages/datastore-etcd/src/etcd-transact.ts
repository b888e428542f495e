import { IpamError } from '@netledger/ipam-core';
import type { KVPair, TransactionWrite } from '@netledger/ipam-core';
import type { EtcdKv, KvKeyValue } from './etcd-kv.js';
import type { EtcdSession } from './etcd-session.js';
import { firstChangeAfter } from './first-change-after.js';
import { classifyEtcdError } from './map-etcd-error.js';
import { HISTORY_TIMEOUT_MS } from './resend-write.js';
import { planTransaction, transactionFailure, transactionResults } from './transaction-plan.js';
import type { PlannedWrite, TransactionPlan } from './transaction-plan.js';

// A transaction whose answer is lost is re-sent, as the single writes are: every write in it is a
// compare-and-swap, so it cannot apply twice. If the re-sent one is refused, etcd's history
// decides whether the first one committed. etcd gives every write of a transaction one revision R,
// so the first write that can tell (an update or a revisioned delete: the first change after the
// revision it named; a create: the revision its key was created at, if after this call began)
// yields a candidate R, and the transaction committed exactly when every key at R is as it wrote
// it: our bytes at mod revision R, or (a delete) absent at R and present just before.

/** What resolving a lost transaction found. */
type Resolution =
  | { readonly applied: true; readonly results: (KVPair | undefined)[] }
  | { readonly applied: false }
  | { readonly applied: 'unknown'; readonly why: string };

const notApplied = { applied: false } as const;

/** The revision at which `w` may have been written by the lost attempt; false: it surely was not. */
async function candidateRevision(
  etcd: EtcdKv,
  w: PlannedWrite,
  ctx: { readonly current: KvKeyValue | undefined; readonly existedBefore: bigint },
): Promise<string | false | undefined> {
  const { current } = ctx;
  switch (w.op) {
    case 'update': {
      // Unchanged since the revision it named: the lost attempt did not write it.
      if (current?.mod_revision === w.revision) return false;
      const change = await firstChangeAfter(etcd, w.path, {
        after: w.revision,
        timeoutMs: HISTORY_TIMEOUT_MS,
      });
      return change.type === 'put' && change.value?.toString('utf8') === w.checked.text
        ? change.modRevision
        : false;
    }
    case 'create': {
      if (!current) return undefined; // created and deleted since, or never: cannot tell here
      if (BigInt(current.create_revision) <= ctx.existedBefore) return false;
      const atCreate = await etcd.range({
        key: Buffer.from(w.path),
        revision: current.create_revision,
      });
      return atCreate.kvs[0]?.value.toString('utf8') === w.checked.text
        ? current.create_revision
        : false;
    }
    case 'delete': {
      if (w.revision === undefined) {
        // Still there since before this call: the lost attempt did not delete it.
        if (current && BigInt(current.create_revision) <= ctx.existedBefore) return false;
        return undefined;
      }
      if (current?.mod_revision === w.revision) return false;
      const change = await firstChangeAfter(etcd, w.path, {
        after: w.revision,
        timeoutMs: HISTORY_TIMEOUT_MS,
      });
      return change.type === 'delete' ? change.modRevision : false;
    }
  }
}

/** Whether every write of `plan` is what the store held at `revision`; the results if so. */
async function writtenAt(
  etcd: EtcdKv,
  plan: TransactionPlan,
  revision: string,
): Promise<(KVPair | undefined)[] | undefined> {
  const before = String(BigInt(revision) - 1n);
  const createRevisions: (string | undefined)[] = [];
  for (const w of plan.writes) {
    const key = Buffer.from(w.path);
    const at = (await etcd.range({ key, revision })).kvs[0];
    if (w.op === 'delete') {
      const prev = (await etcd.range({ key, revision: before })).kvs[0];
      if (at || !prev) return undefined;
      createRevisions.push(undefined);
    } else {
      if (at?.mod_revision !== revision || at.value.toString('utf8') !== w.checked.text) {
        return undefined;
      }
      createRevisions.push(at.create_revision);
    }
  }
  return transactionResults(plan, { revision, createRevisions });
}

/**
 * Whether the lost attempt of `plan` committed, from etcd's history (see the comment above).
 * `current` are the keys as the re-sent transaction's failure branch read them. Connection
 * failures propagate (the caller re-sends); a compacted history leaves the outcome unknown.
 */
async function resolveLostTransaction(
  etcd: EtcdKv,
  plan: TransactionPlan,
  ctx: { readonly current: readonly (KvKeyValue | undefined)[]; readonly existedBefore: bigint },
): Promise<Resolution> {
  try {
    for (const [i, w] of plan.writes.entries()) {
      const revision = await candidateRevision(etcd, w, {
        current: ctx.current[i],
        existedBefore: ctx.existedBefore,
      });
      if (revision === false) return notApplied;
      if (revision === undefined) continue;
      const results = await writtenAt(etcd, plan, revision);
      return results ? { applied: true, results } : notApplied;
    }
  } catch (e) {
    if (e instanceof IpamError || classifyEtcdError(e) === 'retry') throw e;
    return { applied: 'unknown', why: e instanceof Error ? e.message : String(e) };
  }
  // Only deletes without a revision and creates of keys absent now: every key is gone, as the
  // deletes asked (the single delete says the same); a create could have been undone since.
  if (plan.writes.every((w) => w.op === 'delete')) {
    return { applied: true, results: plan.writes.map(() => undefined) };
  }
  return { applied: 'unknown', why: 'its keys have been deleted since' };
}

/**
 * `transact` over `session`: the writes as one etcd transaction, all applied at one revision or
 * none. A refused transaction fails with the error of its first failing write, as that write
 * alone would (`AlreadyExists`, `DoesNotExist`, `UpdateConflict`); bad input fails
 * `InvalidArgument` before anything is sent. A lost answer is re-sent and resolved from etcd's
 * history; when etcd stays unreachable past the dial timeout, or the history cannot tell, it
 * fails `Unavailable` saying the writes may or may not have been applied (all or none).
 */
export function createEtcdTransact(
  session: EtcdSession,
): (writes: readonly TransactionWrite[]) => Promise<(KVPair | undefined)[]> {
  const { kv: etcd } = session;
  return async (writes) => {
    session.assertOpen();
    const plan = planTransaction(writes);
    if (plan.writes.length === 0) return [];
    const paths = plan.writes.map((w) => w.path).join(', ');
    // A key created at or below this revision existed before this transaction was sent.
    const existedBefore = session.seenRevision();
    let unknown = false;
    return session.retrying(
      async () => {
        const res = await etcd.txn(plan.request);
        if (res.succeeded) {
          return transactionResults(plan, {
            revision: res.header.revision,
            createRevisions: res.responses.map((r) => r.response_put?.prev_kv?.create_revision),
          });
        }
        const current = res.responses.map((r) => r.response_range?.kvs[0]);
        if (unknown) {
          const resolved = await resolveLostTransaction(etcd, plan, { current, existedBefore });
          if (resolved.applied === true) return resolved.results;
          if (resolved.applied === 'unknown') {
            throw new IpamError(
              'Unavailable',
              `etcd at ${session.label}: the write to ${paths} may or may not have been applied (${resolved.why})`,
              { identifier: paths },
            );
          }
        }
        throw transactionFailure(plan, current);
      },
      { path: paths, onRetry: () => (unknown = true), outcomeUnknown: () => true },
    );
  };
}
