import type { LogLevel } from './net-conf.js';

/** A leveled logger; the plugin's stdout is reserved for results, so logs go elsewhere. */
export interface Logger {
  debug(msg: string): void;
  info(msg: string): void;
  warning(msg: string): void;
  error(msg: string): void;
}

const RANK: Record<LogLevel, number> = { debug: 0, info: 1, warning: 2, error: 3 };

/** A logger that drops everything. */
export const silentLogger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warning: () => undefined,
  error: () => undefined,
};

/**
 * A logger writing `<RFC 3339 time> [<level>] <msg>` lines at `level` and above to `write`
 * (the app passes stderr plus `log_file_path`).
 */
export function createLogger(opts: {
  level: LogLevel;
  write: (line: string) => void;
  now?: () => number;
}): Logger {
  const now = opts.now ?? Date.now;
  const at =
    (level: LogLevel) =>
    (msg: string): void => {
      if (RANK[level] < RANK[opts.level]) return;
      opts.write(`${new Date(now()).toISOString()} [${level.toUpperCase()}] ${msg}\n`);
    };
  return { debug: at('debug'), info: at('info'), warning: at('warning'), error: at('error') };
}
