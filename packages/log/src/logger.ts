import { levelPasses, logLevelOf } from './log-level.js';
import type { LogLevelName } from './log-level.js';
import { formatLogRecord } from './log-record.js';
import type { LogFields, LogFormat } from './log-record.js';

/**
 * netledger's logger. Packages take the part they call as their port (the CNI plugin's
 * `debug`..`error`, the controllers' and the device daemon's `log(level, msg, fields)`), and every
 * process passes one of these.
 */
export interface Logger {
  log(level: LogLevelName, msg: string, fields?: LogFields): void;
  trace(msg: string, fields?: LogFields): void;
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warning(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /** Whether a line at `level` would be written (to skip building a costly message). */
  enabled(level: LogLevelName): boolean;
  /** A logger adding `fields` to each line (a call's own fields win). */
  child(fields: LogFields): Logger;
}

/** Options of {@link createLogger}. */
export interface LoggerOptions {
  /** Where each line goes (newline included); called once per line, so a line is never split. */
  readonly write: (line: string) => void;
  /** Lines less severe are dropped (default `info`). */
  readonly level?: LogLevelName;
  /** Default `text`. */
  readonly format?: LogFormat;
  /** Milliseconds since the epoch (default `Date.now`). */
  readonly now?: () => number;
  /** Fields of every line. */
  readonly base?: LogFields;
}

/**
 * A logger writing one line per call at `level` and above, in `format` (log-record.ts). It never
 * throws for what it is given (a field that JSON cannot hold is written as its string); a `write`
 * that throws is the caller's to handle.
 */
export function createLogger(options: LoggerOptions): Logger {
  const threshold = options.level ?? 'info';
  const format = options.format ?? 'text';
  const now = options.now ?? Date.now;
  const make = (base: LogFields | undefined): Logger => {
    const log = (level: LogLevelName, msg: string, fields?: LogFields): void => {
      if (!levelPasses(level, threshold)) return;
      const all = base && fields ? { ...base, ...fields } : (fields ?? base);
      options.write(
        formatLogRecord(
          { ts: now(), level: logLevelOf(level), msg, ...(all && { fields: all }) },
          format,
        ),
      );
    };
    return {
      log,
      trace: (msg, fields) => log('trace', msg, fields),
      debug: (msg, fields) => log('debug', msg, fields),
      info: (msg, fields) => log('info', msg, fields),
      warning: (msg, fields) => log('warning', msg, fields),
      error: (msg, fields) => log('error', msg, fields),
      enabled: (level) => levelPasses(level, threshold),
      child: (fields) => make(base ? { ...base, ...fields } : fields),
    };
  };
  return make(options.base);
}

const drop = (): void => undefined;

/** A logger that drops everything. */
export const silentLogger: Logger = {
  log: drop,
  trace: drop,
  debug: drop,
  info: drop,
  warning: drop,
  error: drop,
  enabled: () => false,
  child: () => silentLogger,
};
