/**
 * Calico's log levels (logrus's), most severe first: what every netledger process accepts and
 * writes (`warning`, never `warn`, in its output).
 */
export const LOG_LEVELS = ['panic', 'fatal', 'error', 'warning', 'info', 'debug', 'trace'] as const;

/** One of Calico's log levels. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** A level as a call site or a setting may name it: Calico's, or `warn` for `warning` (logrus too). */
export type LogLevelName = LogLevel | 'warn';

const RANK: Readonly<Record<LogLevelName, number>> = {
  panic: 0,
  fatal: 1,
  error: 2,
  warning: 3,
  warn: 3,
  info: 4,
  debug: 5,
  trace: 6,
};

/** Whether `text` names a level exactly (lower case; `warn` included). */
export function isLogLevelName(text: string): text is LogLevelName {
  return Object.hasOwn(RANK, text);
}

/**
 * The level `text` names, as logrus's ParseLevel reads it: case-insensitive, `warn` for
 * `warning`; undefined for anything else.
 */
export function parseLogLevel(text: string): LogLevel | undefined {
  const l = text.toLowerCase();
  if (!isLogLevelName(l)) return undefined;
  return l === 'warn' ? 'warning' : l;
}

/** The level `name` stands for (`warn` is `warning`). */
export function logLevelOf(name: LogLevelName): LogLevel {
  return name === 'warn' ? 'warning' : name;
}

/** Whether a line at `level` is written by a logger set to `threshold` (as or more severe). */
export function levelPasses(level: LogLevelName, threshold: LogLevelName): boolean {
  return RANK[level] <= RANK[threshold];
}
