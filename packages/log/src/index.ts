export { LOG_LEVELS, isLogLevelName, parseLogLevel } from './log-level.js';
export type { LogLevel, LogLevelName } from './log-level.js';
export { parseLogFormat } from './log-record.js';
export type { LogFields, LogFormat } from './log-record.js';
export { createLogger, silentLogger } from './logger.js';
export type { Logger } from './logger.js';
export { createRotatingFile } from './rotating-file.js';
export type { RotatingFile } from './rotating-file.js';
export { stopSignal } from './stop-signal.js';
