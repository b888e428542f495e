// The device daemon's logging port over @netledger/log, netledger's one logger: Calico's level
// names in every line (`warn` at a call site is written `warning`), JSON or text.
import { createLogger } from '@netledger/log';
import type { LogFormat, LogLevelName } from '@netledger/log';
import type { ErrorBody } from './device-error.js';

/** Log levels: Calico's names, and `warn` for `warning`. */
export type LogLevel = LogLevelName;

/**
 * Structured fields attached to a log line: plain values, and `error` in the one error shape
 * ({@link ErrorBody}) the API and the CLI use too.
 */
export type LogFields = Readonly<Record<string, string | number | boolean | ErrorBody | undefined>>;

/** A structured logger. */
export interface Logger {
  log(level: LogLevel, msg: string, fields?: LogFields): void;
}

/** Milliseconds since the epoch. */
export interface Clock {
  now(): number;
}

/** A logger writing one line per event, JSON unless `format` says `text` (`ts`, `level`, `msg`, then the fields). */
export function createJsonLogger(opts: {
  readonly write: (line: string) => void;
  readonly clock: Clock;
  readonly level?: LogLevel;
  readonly format?: LogFormat;
}): Logger {
  return createLogger({
    write: opts.write,
    now: () => opts.clock.now(),
    level: opts.level ?? 'info',
    format: opts.format ?? 'json',
  });
}
