// The controllers' logging port over @netledger/log, netledger's one logger: Calico's level names
// in every line (`warn` at a call site is written `warning`), JSON or text.
import { createLogger, isLogLevelName, silentLogger as silent } from '@netledger/log';
import type { LogFields as LogPackageFields, LogFormat, LogLevelName } from '@netledger/log';

/** Log levels: Calico's names, and `warn` for `warning`. */
export type LogLevel = LogLevelName;

/** Structured fields of a log line. */
export type LogFields = LogPackageFields;

/** A structured logger: one event per call, its fields machine-readable. */
export interface Logger {
  log(level: LogLevel, msg: string, fields?: LogFields): void;
}

/** Whether `text` names a log level (lower case). */
export function isLogLevel(text: string): text is LogLevel {
  return isLogLevelName(text);
}

/**
 * A logger writing one line per event, JSON unless `format` says `text`: `ts`, `level`, `msg`,
 * then the fields (undefined ones left out). Lines below `level` (default `info`) are dropped.
 */
export function createJsonLogger(options: {
  readonly write: (line: string) => void;
  readonly now: () => number;
  readonly level?: LogLevel;
  /** Fields added to every line (e.g. `{ controller: 'ipam-gc' }`). */
  readonly base?: LogFields;
  readonly format?: LogFormat;
}): Logger {
  return createLogger({ ...options, format: options.format ?? 'json' });
}

/** A logger that adds `fields` to every line of `inner`. */
export function withLogFields(inner: Logger, fields: LogFields): Logger {
  return { log: (level, msg, more) => inner.log(level, msg, { ...fields, ...more }) };
}

/** A logger that drops everything. */
export const silentLogger: Logger = silent;

/** The message of an error, for a log field. */
export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
