import type { ErrorBody } from './device-error.js';

/** Log levels, lowest first. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

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

const ORDER: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

/** A logger writing one JSON object per line (`ts`, `level`, `msg`, then the fields). */
export function createJsonLogger(opts: {
  readonly write: (line: string) => void;
  readonly clock: Clock;
  readonly level?: LogLevel;
}): Logger {
  const min = ORDER[opts.level ?? 'info'];
  return {
    log(level, msg, fields) {
      if (ORDER[level] < min) return;
      opts.write(
        JSON.stringify({ ts: new Date(opts.clock.now()).toISOString(), level, msg, ...fields }) +
          '\n',
      );
    },
  };
}
