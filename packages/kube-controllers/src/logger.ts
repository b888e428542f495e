/** Log levels, lowest first. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** Structured fields of a log line. */
export type LogFields = Readonly<Record<string, string | number | boolean | null | undefined>>;

/** A structured logger: one event per call, its fields machine-readable. */
export interface Logger {
  log(level: LogLevel, msg: string, fields?: LogFields): void;
}

const ORDER: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

/** Whether `text` names a log level. */
export function isLogLevel(text: string): text is LogLevel {
  return text in ORDER;
}

/**
 * A logger writing one JSON object per line: `ts`, `level`, `msg`, then the fields (undefined
 * ones left out). Lines below `level` (default `info`) are dropped.
 */
export function createJsonLogger(options: {
  readonly write: (line: string) => void;
  readonly now: () => number;
  readonly level?: LogLevel;
  /** Fields added to every line (e.g. `{ controller: 'ipam-gc' }`). */
  readonly base?: LogFields;
}): Logger {
  const min = ORDER[options.level ?? 'info'];
  return {
    log(level, msg, fields) {
      if (ORDER[level] < min) return;
      const line = {
        ts: new Date(options.now()).toISOString(),
        level,
        msg,
        ...options.base,
        ...fields,
      };
      options.write(`${JSON.stringify(line)}\n`);
    },
  };
}

/** A logger that adds `fields` to every line of `inner`. */
export function withLogFields(inner: Logger, fields: LogFields): Logger {
  return { log: (level, msg, more) => inner.log(level, msg, { ...fields, ...more }) };
}

/** A logger that drops everything. */
export const silentLogger: Logger = { log: () => undefined };

/** The message of an error, for a log field. */
export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
