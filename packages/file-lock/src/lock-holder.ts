/** Who holds a lock: written into the lock file, read by processes waiting for it. */
export interface LockHolder {
  readonly pid: number;
  /** Field 22 of `/proc/<pid>/stat` (clock ticks since boot): tells a reused pid apart. */
  readonly startTime?: string;
  /** `readlink /proc/self/ns/pid`: pids are only comparable inside one pid namespace. */
  readonly pidNamespace?: string;
  /** Random per lock instance, so two lock files never have the same text ('' in old records). */
  readonly nonce: string;
}

/** What `/proc/<pid>` and `kill(pid, 0)` say about a process. */
export interface ProcessProbe {
  readonly exists: boolean;
  /** Field 3 of `/proc/<pid>/stat`: `Z` (zombie) and `X` (dead) count as dead. */
  readonly state?: string;
  readonly startTime?: string;
}

/** Whether a lock holder is still running; `unknown` is treated as alive (never broken). */
export type HolderStatus = 'alive' | 'dead' | 'unknown';

const ABSENT = '-';

/**
 * The lock file text for a holder: one line, `<pid> <start time> <pid namespace> <nonce>`, `-`
 * for a field `/proc` did not give. Readers that know only the first three fields (the CNI host
 * lock before this package) judge it correctly.
 */
export function formatLockHolder(holder: LockHolder): string {
  const { pid, startTime, pidNamespace, nonce } = holder;
  return `${pid} ${startTime ?? ABSENT} ${pidNamespace ?? ABSENT} ${nonce}\n`;
}

const positivePid = (pid: unknown): pid is number =>
  typeof pid === 'number' && Number.isSafeInteger(pid) && pid > 0;

/** The JSON records the file store wrote before this package: `{"pid":..,"nonce":..,...}`. */
function parseJsonRecord(text: string): LockHolder | undefined {
  try {
    const o: unknown = JSON.parse(text);
    if (typeof o !== 'object' || o === null) return undefined;
    const { pid, startTime, pidNamespace, nonce } = o as Record<string, unknown>;
    if (!positivePid(pid) || typeof nonce !== 'string') return undefined;
    return {
      pid,
      nonce,
      ...(typeof startTime === 'string' && { startTime }),
      ...(typeof pidNamespace === 'string' && { pidNamespace }),
    };
  } catch {
    return undefined;
  }
}

/**
 * Reads lock file text; undefined when it is not a holder record. Also reads the records written
 * before this package (the file store's JSON, the CNI host lock's line without a nonce), so a lock
 * left by a process of the previous version is judged, not taken for garbage.
 */
export function parseLockHolder(text: string): LockHolder | undefined {
  const line = text.trim();
  if (line.startsWith('{')) return parseJsonRecord(line);
  const fields = line.split(' ');
  const [pid, startTime, pidNamespace, nonce = ''] = fields;
  if (fields.length < 3 || fields.length > 4 || !pid || !/^\d+$/.test(pid)) return undefined;
  if (!startTime || !(startTime === ABSENT || /^\d+$/.test(startTime))) return undefined;
  if (!pidNamespace) return undefined;
  const n = Number(pid);
  if (!positivePid(n)) return undefined;
  return {
    pid: n,
    nonce,
    ...(startTime !== ABSENT && { startTime }),
    ...(pidNamespace !== ABSENT && { pidNamespace }),
  };
}

/**
 * The state and start time in `/proc/<pid>/stat` text. The command name (field 2) may hold spaces
 * and parentheses, so fields are counted from the last `)`.
 */
export function parseProcStat(text: string): { state: string; startTime: string } | undefined {
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const state = fields[0];
  const startTime = fields[19];
  if (!state || !startTime || !/^\d+$/.test(startTime)) return undefined;
  return { state, startTime };
}

/**
 * Judges a lock holder: dead when its pid is gone, a zombie, or now belongs to a process started
 * at another time; unknown when it lives in another pid namespace (its pid means nothing here).
 */
export function judgeHolder(
  holder: LockHolder,
  selfPidNamespace: string | undefined,
  probe: ProcessProbe,
): HolderStatus {
  if (holder.pidNamespace && selfPidNamespace && holder.pidNamespace !== selfPidNamespace) {
    return 'unknown';
  }
  if (!probe.exists) return 'dead';
  if (probe.state === 'Z' || probe.state === 'X') return 'dead';
  if (holder.startTime && probe.startTime && holder.startTime !== probe.startTime) return 'dead';
  return 'alive';
}
