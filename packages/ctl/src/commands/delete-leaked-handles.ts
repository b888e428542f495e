import { isIpamError } from '@netledger/ipam-core';
import type { Datastore } from '@netledger/ipam-core';
import type { ReportHandle } from './check-report.js';

/** What {@link deleteLeakedHandles} did: its lines, the handles deleted, and whether any failed. */
export interface LeakedHandlesDeletion {
  readonly lines: string[];
  readonly deleted: string[];
  readonly failed: boolean;
}

/** `.` deleted, `x` skipped (missing or changed since the report), `E` an error. */
type Mark = '.' | 'x' | 'E';

async function deleteHandle(datastore: Datastore, h: ReportHandle): Promise<Mark> {
  const key = { kind: 'IPAMHandle', handleId: h.ID } as const;
  try {
    const kv = await datastore.get(key);
    if (
      kv.revision !== h.Revision ||
      (h.UID !== null && kv.uid !== undefined && kv.uid !== h.UID)
    ) {
      return 'x';
    }
    await datastore.delete(key, { revision: h.Revision, ...(h.UID !== null && { uid: h.UID }) });
    return '.';
  } catch (e) {
    return isIpamError(e, 'DoesNotExist', 'UpdateConflict') ? 'x' : 'E';
  }
}

/**
 * Deletes each merged orphaned handle only if its revision (and uid) still match the report,
 * one at a time, calling `progress` with each mark (`.`/`x`/`E`) as it happens. A handle that
 * fails is counted and the rest still tried; `failed` when any errored.
 */
export async function deleteLeakedHandles(
  datastore: Datastore,
  o: { handles: readonly ReportHandle[]; progress?: ((text: string) => void) | undefined },
): Promise<LeakedHandlesDeletion> {
  if (o.handles.length === 0) {
    return {
      lines: ["Report didn't contain any handles to clean up."],
      deleted: [],
      failed: false,
    };
  }
  const lines = [
    `Deleting ${o.handles.length} handles...`,
    "Key: '.' = Deleted OK; 'x' = skip, handle missing/changed.",
  ];
  const deleted: string[] = [];
  let marks = '';
  for (const h of o.handles) {
    const mark = await deleteHandle(datastore, h);
    if (mark === '.') deleted.push(h.ID);
    marks += mark;
    o.progress?.(mark);
  }
  o.progress?.('\n');
  const skipped = [...marks].filter((m) => m === 'x').length;
  const errors = [...marks].filter((m) => m === 'E').length;
  lines.push(marks, `Released ${deleted.length} handles; ${skipped} skipped; ${errors} errors.`);
  return { lines, deleted, failed: errors > 0 };
}
