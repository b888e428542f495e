import { parseJson } from '@netledger/ipam-core/adapter';
import type { JsonValue } from '@netledger/ipam-core/adapter';
import { CtlError } from '../ctl-error.js';
import { formatJson } from '../output/format-json.js';

/** One allocation in an `ipam check` report (calicoctl's `Allocation`). */
export interface ReportAllocation {
  readonly ip: string;
  readonly handle?: string;
  /** uint64: exact as a bigint. */
  readonly sequenceNumber?: bigint;
  readonly pod?: string;
  readonly namespace?: string;
  readonly node?: string;
  readonly type?: string;
  readonly creationTimestamp?: string;
  readonly inUse: boolean;
  readonly borrowed?: boolean;
  readonly coolingDown?: boolean;
  readonly owners: string[] | null;
}

/** A handle no allocation names (calicoctl's `HandleInfo`, untagged so capitalised). */
export interface ReportHandle {
  readonly ID: string;
  readonly UID: string | null;
  readonly Revision: string;
}

/** The `ipam check -o` report, calicoctl's `CheckReport`. */
export interface CheckReport {
  readonly version: string;
  readonly clusterGUID: string;
  readonly datastoreLocked: boolean;
  readonly clusterInformationRevision: string;
  readonly clusterType: string;
  readonly allocations: Readonly<Record<string, ReportAllocation[]>>;
  readonly leakedHandles?: ReportHandle[];
}

function orderedAllocation(a: ReportAllocation): Record<string, unknown> {
  return {
    ip: a.ip,
    handle: a.handle || undefined,
    sequenceNumber: a.sequenceNumber,
    pod: a.pod || undefined,
    namespace: a.namespace || undefined,
    node: a.node || undefined,
    type: a.type || undefined,
    creationTimestamp: a.creationTimestamp || undefined,
    inUse: a.inUse,
    borrowed: a.borrowed || undefined,
    coolingDown: a.coolingDown || undefined,
    owners: a.owners && a.owners.length > 0 ? a.owners : null,
  };
}

/**
 * The report as calicoctl writes it (`json.MarshalIndent`, two spaces): fields in Go's order,
 * empty optional fields left out, allocation keys sorted, sequence numbers exact.
 */
export function serializeCheckReport(r: CheckReport): string {
  const allocations: Record<string, unknown> = {};
  for (const ip of Object.keys(r.allocations).sort()) {
    allocations[ip] = r.allocations[ip]!.map(orderedAllocation);
  }
  return formatJson({
    version: r.version,
    clusterGUID: r.clusterGUID,
    datastoreLocked: r.datastoreLocked,
    clusterInformationRevision: r.clusterInformationRevision,
    clusterType: r.clusterType,
    allocations,
    leakedHandles: r.leakedHandles && r.leakedHandles.length > 0 ? r.leakedHandles : undefined,
  });
}

type Obj = { [k: string]: JsonValue };
const isObj = (v: JsonValue | undefined): v is Obj =>
  v !== null && v !== undefined && typeof v === 'object' && !Array.isArray(v);

/**
 * Parses a report (sequence numbers exactly, as bigints). A file that is not JSON or lacks the
 * fields release relies on fails `InvalidInput` naming the file and the field.
 */
export function parseCheckReport(text: string, source: string): CheckReport {
  const bad = (what: string): never => {
    throw new CtlError('InvalidInput', `${source}: not a valid ipam check report: ${what}`);
  };
  let doc: JsonValue;
  try {
    doc = parseJson(text);
  } catch (e) {
    return bad((e as Error).message);
  }
  if (!isObj(doc)) return bad('expected a JSON object');
  const s = (k: string): string => {
    const v = doc[k];
    return typeof v === 'string' ? v : bad(`${k} must be a string`);
  };
  const allocationsValue = doc.allocations;
  if (!isObj(allocationsValue)) return bad('allocations must be an object');
  const allocations: Record<string, ReportAllocation[]> = {};
  for (const [ip, list] of Object.entries(allocationsValue)) {
    if (!Array.isArray(list)) return bad(`allocations[${ip}] must be a list`);
    allocations[ip] = list.map((a, i) => {
      const where = `allocations[${ip}][${i}]`;
      if (!isObj(a)) return bad(`${where} must be an object`);
      if (typeof a.ip !== 'string') return bad(`${where}.ip must be a string`);
      if (typeof a.inUse !== 'boolean') return bad(`${where}.inUse must be a boolean`);
      const seq = a.sequenceNumber;
      if (
        seq !== undefined &&
        typeof seq !== 'bigint' &&
        !(typeof seq === 'number' && Number.isSafeInteger(seq) && seq >= 0)
      ) {
        return bad(`${where}.sequenceNumber must be a non-negative integer`);
      }
      const opt = (k: string): string | undefined => {
        const v = a[k];
        if (v === undefined) return undefined;
        return typeof v === 'string' ? v : bad(`${where}.${k} must be a string`);
      };
      return {
        ip: a.ip,
        handle: opt('handle'),
        ...(seq !== undefined && { sequenceNumber: BigInt(seq) }),
        pod: opt('pod'),
        namespace: opt('namespace'),
        node: opt('node'),
        type: opt('type'),
        creationTimestamp: opt('creationTimestamp'),
        inUse: a.inUse,
        borrowed: a.borrowed === true,
        coolingDown: a.coolingDown === true,
        owners: Array.isArray(a.owners) ? a.owners.map(String) : null,
      };
    });
  }
  const handlesValue = doc.leakedHandles ?? [];
  if (!Array.isArray(handlesValue)) return bad('leakedHandles must be a list');
  const leakedHandles = handlesValue.map((h, i) => {
    if (!isObj(h) || typeof h.ID !== 'string' || typeof h.Revision !== 'string') {
      return bad(`leakedHandles[${i}] needs string ID and Revision`);
    }
    return { ID: h.ID, UID: typeof h.UID === 'string' ? h.UID : null, Revision: h.Revision };
  });
  if (typeof doc.datastoreLocked !== 'boolean') bad('datastoreLocked must be a boolean');
  return {
    version: s('version'),
    clusterGUID: s('clusterGUID'),
    datastoreLocked: doc.datastoreLocked as boolean,
    clusterInformationRevision: s('clusterInformationRevision'),
    clusterType: s('clusterType'),
    allocations,
    leakedHandles,
  };
}
