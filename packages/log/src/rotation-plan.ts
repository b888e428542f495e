// How a rotated log file is named and which ones go: calico-ipam's (lumberjack's) scheme. A file
// `<stem><ext>` rotated at time T becomes `<stem>-<T as YYYY-MM-DDTHH-MM-SS.mmm, UTC><ext>`, with
// `-<n>` after the time when that name is taken, so names sort by rotation time.

/** A log file's path split as rotation names its backups. */
export interface LogFileName {
  readonly dir: string;
  /** The file name without its extension. */
  readonly stem: string;
  /** The extension, dot included (empty when none). */
  readonly ext: string;
}

/** What {@link backupsToRemove} keeps. */
export interface RetentionPolicy {
  /** Backups kept at most (newest first); the rest are removed. */
  readonly maxCount: number;
  /** Backups rotated longer ago than this are removed; 0 keeps them whatever their age. */
  readonly maxAgeMs: number;
}

/** Splits `path` into directory, stem and extension (the extension is after the name's last dot). */
export function splitLogPath(path: string): LogFileName {
  const slash = path.lastIndexOf('/');
  const dir = slash >= 0 ? path.slice(0, slash) || '/' : '.';
  const name = path.slice(slash + 1);
  const dot = name.lastIndexOf('.');
  return dot > 0
    ? { dir, stem: name.slice(0, dot), ext: name.slice(dot) }
    : { dir, stem: name, ext: '' };
}

const stamp = (ms: number): string => new Date(ms).toISOString().slice(0, 23).replace(/:/g, '-');

/** The backup name (no directory) for a rotation at `ms`; `n` > 0 for the n-th name when taken. */
export function backupName(file: LogFileName, ms: number, n = 0): string {
  return `${file.stem}-${stamp(ms)}${n > 0 ? `-${n}` : ''}${file.ext}`;
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * When the backup `name` of `file` was rotated (ms) and its `-<n>` (0 without), or undefined when
 * it is not one of its backups.
 */
export function parseBackupName(
  file: LogFileName,
  name: string,
): { readonly at: number; readonly n: number } | undefined {
  const m = new RegExp(
    `^${escape(file.stem)}-(\\d{4}-\\d\\d-\\d\\dT\\d\\d)-(\\d\\d)-(\\d\\d\\.\\d{3})(?:-(\\d+))?${escape(file.ext)}$`,
  ).exec(name);
  if (!m) return undefined;
  const at = Date.parse(`${m[1]}:${m[2]}:${m[3]}Z`);
  return Number.isNaN(at) ? undefined : { at, n: Number(m[4] ?? 0) };
}

/**
 * Of the names in the log's directory, the backups of `file` to remove at `now`: those beyond
 * `maxCount` (the oldest, by rotation time) and those older than `maxAgeMs`. Other names are
 * never chosen.
 */
export function backupsToRemove(
  file: LogFileName,
  names: readonly string[],
  o: RetentionPolicy & { readonly now: number },
): string[] {
  const backups = names
    .flatMap((name) => {
      const b = parseBackupName(file, name);
      return b ? [{ name, ...b }] : [];
    })
    .sort((a, b) => b.at - a.at || b.n - a.n);
  return backups
    .filter((b, i) => i >= o.maxCount || (o.maxAgeMs > 0 && o.now - b.at > o.maxAgeMs))
    .map((b) => b.name);
}
