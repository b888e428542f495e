// The one reading of NETLEDGER_LOG_FORMAT, for every long-lived process.
import { parseLogFormat } from './log-record.js';
import type { LogFormat } from './log-record.js';

/** NETLEDGER_LOG_FORMAT named a format that is neither text nor json. */
export class LogFormatError extends Error {
  readonly code = 'BadLogFormat';
  override readonly name = 'LogFormatError';
}

/**
 * The line format NETLEDGER_LOG_FORMAT names in `env` (`text` or `json`, case-insensitive), or
 * `byDefault` when it is unset; throws {@link LogFormatError} naming the value otherwise.
 */
export function logFormatFromEnv(
  env: Readonly<Record<string, string | undefined>>,
  byDefault: LogFormat,
): LogFormat {
  const text = env['NETLEDGER_LOG_FORMAT'];
  if (text === undefined) return byDefault;
  const format = parseLogFormat(text);
  if (format === undefined)
    throw new LogFormatError(`NETLEDGER_LOG_FORMAT ${text}: not one of text, json`);
  return format;
}
