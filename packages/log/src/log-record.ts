import type { LogLevel } from './log-level.js';

/** The two line formats: one JSON object per line, or Calico-style text. */
const LOG_FORMATS = ['json', 'text'] as const;

/** One of {@link LOG_FORMATS}. */
export type LogFormat = (typeof LOG_FORMATS)[number];

/** Structured fields of a line; undefined ones are left out. */
export type LogFields = Readonly<Record<string, unknown>>;

/** What one log call says. */
export interface LogRecord {
  /** Milliseconds since the epoch. */
  readonly ts: number;
  readonly level: LogLevel;
  readonly msg: string;
  readonly fields?: LogFields;
}

/** The format `text` names (case-insensitive), or undefined. */
export function parseLogFormat(text: string): LogFormat | undefined {
  const f = text.toLowerCase();
  return (LOG_FORMATS as readonly string[]).includes(f) ? (f as LogFormat) : undefined;
}

/** A field's value as JSON can hold it: an Error as its message (and code), a bigint as a string. */
function plain(value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Error) {
    const code = (value as { code?: unknown }).code;
    return code === undefined ? value.message : { message: value.message, code };
  }
  return value;
}

/** The fields to write: defined, not shadowing `ts`, `level` or `msg`, made plain. */
function entries(fields: LogFields | undefined): [string, unknown][] {
  if (!fields) return [];
  return Object.entries(fields)
    .filter(([k, v]) => v !== undefined && k !== 'ts' && k !== 'level' && k !== 'msg')
    .map(([k, v]) => [k, plain(v)]);
}

function json(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch {
    return JSON.stringify(String(value)); // a cycle: its string form rather than no line
  }
}

/** A text value: bare when it is one plain word, else quoted as JSON quotes it. */
function textValue(value: unknown): string {
  if (typeof value === 'string') return /^[\w./:@+-]+$/.test(value) ? value : json(value);
  return typeof value === 'object' && value !== null ? json(value) : String(value);
}

/**
 * One line, newline included. `json`: `{"ts":"<RFC 3339>","level":"warning","msg":...,<fields>}`.
 * `text`: `<RFC 3339> [WARNING] <msg> key=value ...` (Calico's level names in capitals, values
 * with spaces quoted). A message's own newlines are escaped, so a record is always one line.
 */
export function formatLogRecord(record: LogRecord, format: LogFormat): string {
  const ts = new Date(record.ts).toISOString();
  const rest = entries(record.fields);
  if (format === 'json') {
    const head = `{"ts":"${ts}","level":"${record.level}","msg":${json(record.msg)}`;
    return `${head}${rest.map(([k, v]) => `,${json(k)}:${json(v)}`).join('')}}\n`;
  }
  const msg = record.msg.replace(/\r?\n/g, '\\n');
  const tail = rest.map(([k, v]) => ` ${k}=${textValue(v)}`).join('');
  return `${ts} [${record.level.toUpperCase()}] ${msg}${tail}\n`;
}
