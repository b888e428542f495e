import type { Logger as LogPackageLogger } from '@netledger/log';

/**
 * What the plugin logs through: the part of `@netledger/log`'s logger it calls (its stdout is
 * reserved for results, so lines go to stderr and the log file).
 */
export type Logger = Pick<LogPackageLogger, 'debug' | 'info' | 'warning' | 'error'>;

export { createLogger, silentLogger } from '@netledger/log';
