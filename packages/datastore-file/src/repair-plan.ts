import { IpamError } from '@netledger/ipam-core';
import { salvageStoreText } from './salvage-store-text.js';
import type { SalvagedStore } from './salvage-store-text.js';
import { parseStoreDocument } from './store-document.js';
import type { StoreSnapshot, StoredEntry } from './store-snapshot.js';
import { STORE_FORMAT } from './store-snapshot.js';

/** How `repair` rebuilds the store: from the previous generation, or from what the file holds. */
export type RepairMode = 'auto' | 'previous' | 'salvage';

/**
 * What a repaired store lacks compared with the damaged file or the previous generation:
 * `unreadable` a record of the damaged file that does not check; `reverted` an object restored to
 * the previous generation's value, a later change to it lost; `dropped` an object the damaged file
 * holds and the previous generation does not (created by the lost write); `missing` an object of
 * the previous generation that the damaged file does not show (deleted by the last write, or lost
 * in the damage).
 */
export interface LostKey {
  readonly path: string;
  readonly kind: 'unreadable' | 'reverted' | 'dropped' | 'missing';
  readonly reason: string;
}

/** The plan for one store file: nothing to do, or the snapshot to write and what it loses. */
export type RepairPlan =
  | { readonly action: 'none' }
  | {
      readonly action: 'restored-previous' | 'salvaged';
      /** Why the file is refused (the open error's message). */
      readonly problem: string;
      readonly snapshot: StoreSnapshot;
      readonly lost: readonly LostKey[];
      /** False when the damaged file could not be read to its end: more may be lost than named. */
      readonly complete: boolean;
      /** The store file was missing: restored from the previous generation, nothing to keep aside. */
      readonly missing: boolean;
    };

/** Inputs of {@link planRepair}. */
export interface PlanRepairInput {
  readonly path: string;
  /** The store file's text; undefined when it is missing. */
  readonly text: string | undefined;
  /** The previous generation's path and text, if there is one. */
  readonly previous?: { readonly path: string; readonly text: string };
  readonly mode: RepairMode;
  /** The repaired store's id (a new one: open watches elsewhere expire). */
  readonly newStoreId: string;
}

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));

type Checked = { snapshot: StoreSnapshot } | { error: string; code: string };

/** Checks a file in full: its seal, and every value decoded whatever the seal says. */
function check(path: string, text: string): Checked {
  try {
    return { snapshot: parseStoreDocument(text, { filePath: path, checkValues: true }) };
  } catch (e) {
    if (!(e instanceof IpamError)) throw e;
    return { error: message(e), code: e.code };
  }
}

const sameEntry = (a: StoredEntry, b: StoredEntry): boolean =>
  a.value === b.value && a.modRevision === b.modRevision && a.uid === b.uid;

function lostByRestore(salvaged: SalvagedStore, previous: StoreSnapshot): LostKey[] {
  const lost: LostKey[] = [];
  for (const [path, entry] of salvaged.entries) {
    const before = previous.entries.get(path);
    if (!before) {
      lost.push({ path, kind: 'dropped', reason: 'created after the previous generation' });
    } else if (!sameEntry(before, entry)) {
      lost.push({
        path,
        kind: 'reverted',
        reason: `changed at revision ${entry.modRevision}; the value of revision ${before.modRevision} is restored`,
      });
    }
  }
  for (const u of salvaged.unreadable) {
    const restored = previous.entries.has(u.path)
      ? '; the previous generation value is restored'
      : '';
    lost.push({ path: u.path, kind: 'unreadable', reason: `${u.reason}${restored}` });
  }
  return lost;
}

function lostBySalvage(salvaged: SalvagedStore, previous: StoreSnapshot | undefined): LostKey[] {
  const lost: LostKey[] = salvaged.unreadable.map((u) => ({
    path: u.path,
    kind: 'unreadable' as const,
    reason: u.reason,
  }));
  const named = new Set(lost.map((l) => l.path));
  for (const path of previous?.entries.keys() ?? []) {
    if (salvaged.entries.has(path) || named.has(path)) continue;
    lost.push({
      path,
      kind: 'missing',
      reason: `in the previous generation (revision ${previous!.revision}), not in the damaged file: deleted by the last write, or lost`,
    });
  }
  return lost;
}

/**
 * The revision the repaired store starts at: above every revision the damaged file, its records
 * or the previous generation show (the damaged file's own write was the previous generation's + 1).
 * Objects keep their mod revisions; new writes get new ones, so a client holding a revision read
 * before the damage can never match an object changed since (no ABA on compare-and-swap).
 */
function revisionAbove(salvaged: SalvagedStore, previous: StoreSnapshot | undefined): number {
  let top = Math.max(salvaged.revision ?? 0, previous ? previous.revision + 1 : 0);
  for (const e of salvaged.entries.values()) top = Math.max(top, e.modRevision);
  return top + 1;
}

/** `"format":"netledger-datastore/v1"`, the header field every store file starts with. */
const FORMAT_FIELD = new RegExp(`"format"\\s*:\\s*"${STORE_FORMAT}"`);

/**
 * Refuses (`InvalidArgument`) to repair a file that shows no sign of being a store, however
 * damaged: it does not name the store format, holds no record that checks, and has no good
 * previous generation beside it (a file emptied or zeroed by a crash has one). Repair replaces the
 * file at the path it is given: this keeps it from replacing one that was never a store.
 */
function refuseUnlessStore(
  path: string,
  text: string,
  evidence: { salvaged: SalvagedStore; previous: StoreSnapshot | undefined },
): void {
  if (FORMAT_FIELD.test(text)) return;
  if (evidence.salvaged.entries.size > 0 || evidence.previous) return;
  throw new IpamError(
    'InvalidArgument',
    `${path}: not a netledger datastore file (it does not name the format "${STORE_FORMAT}", holds no datastore record, and has no good previous generation ${path}.prev); refusing to repair it`,
    { identifier: path },
  );
}

/**
 * The plan for a store file that is missing: its previous generation restored (mode `auto` or
 * `previous`). Throws `DoesNotExist` without a previous generation or in mode `salvage` (nothing
 * to salvage), `CorruptValue` when the previous generation does not check.
 */
function planMissing(input: PlanRepairInput, prev: Checked | undefined): RepairPlan {
  const previousPath = input.previous?.path ?? `${input.path}.prev`;
  if (!prev) {
    throw new IpamError('DoesNotExist', `${input.path}: no datastore file to repair`, {
      identifier: input.path,
    });
  }
  if (input.mode === 'salvage') {
    throw new IpamError(
      'DoesNotExist',
      `${input.path}: no datastore file to salvage; its previous generation ${previousPath} can be restored (repair without salvage)`,
      { identifier: input.path },
    );
  }
  if ('error' in prev) {
    throw new IpamError('CorruptValue', `cannot restore the previous generation: ${prev.error}`, {
      identifier: previousPath,
    });
  }
  // Above the missing file's revision, which was the previous generation's + 1 (a file written by
  // repair is the exception: its revision is higher, and `.prev` is older until the next write).
  const revision = prev.snapshot.revision + 2;
  return {
    action: 'restored-previous',
    problem: `${input.path}: the datastore file is missing`,
    snapshot: {
      storeId: input.newStoreId,
      revision,
      compactedRevision: revision,
      entries: sortedEntries(prev.snapshot.entries),
      history: [],
    },
    lost: [],
    complete: false,
    missing: true,
  };
}

const sortedEntries = (
  entries: ReadonlyMap<string, StoredEntry>,
): ReadonlyMap<string, StoredEntry> =>
  new Map([...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/**
 * Decides how to repair the store file `text`: nothing when it checks in full (its seal included);
 * else a new snapshot from the previous generation (`previous`, or `auto` when that one checks in
 * full) or from every record of the damaged file that checks (`salvage`, or `auto` without a good
 * previous generation), with every key it loses named. A missing file (`text` undefined) is
 * restored from a good previous generation. The new snapshot has a new store id, an empty history
 * and a revision above any the damaged store handed out. Pure. Throws `InvalidArgument` for a file
 * that is not a store (see `refuseUnlessStore`), `CorruptValue` for `previous` without a good
 * previous generation, `DoesNotExist` when there is neither a store file nor a previous generation.
 */
export function planRepair(input: PlanRepairInput): RepairPlan {
  const prev = input.previous ? check(input.previous.path, input.previous.text) : undefined;
  if (input.text === undefined) return planMissing(input, prev);
  const current = check(input.path, input.text);
  if ('snapshot' in current) return { action: 'none' };
  const previous = prev && 'snapshot' in prev ? prev.snapshot : undefined;
  const salvaged = salvageStoreText(input.text, input.path);
  refuseUnlessStore(input.path, input.text, { salvaged, previous });
  const usePrevious = input.mode === 'previous' || (input.mode === 'auto' && previous);
  if (usePrevious && !previous) {
    const why =
      prev && 'error' in prev ? prev.error : `no previous generation (${input.path}.prev)`;
    throw new IpamError('CorruptValue', `cannot restore the previous generation: ${why}`, {
      identifier: input.previous?.path ?? input.path,
    });
  }
  const revision = revisionAbove(salvaged, previous);
  const entries = usePrevious ? previous!.entries : salvaged.entries;
  return {
    action: usePrevious ? 'restored-previous' : 'salvaged',
    problem: current.error,
    snapshot: {
      storeId: input.newStoreId,
      revision,
      compactedRevision: revision,
      entries: sortedEntries(entries),
      history: [],
    },
    lost: usePrevious ? lostByRestore(salvaged, previous!) : lostBySalvage(salvaged, previous),
    complete: salvaged.complete,
    missing: false,
  };
}
