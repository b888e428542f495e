import { describe, expect, it } from 'vitest';
import { LogFormatError, logFormatFromEnv } from './log-format-from-env.js';

describe('logFormatFromEnv', () => {
  it('takes the default when NETLEDGER_LOG_FORMAT is unset', () => {
    expect(logFormatFromEnv({}, 'json')).toBe('json');
    expect(logFormatFromEnv({ OTHER: 'text' }, 'text')).toBe('text');
  });

  it.each([
    ['json', 'json'],
    ['TEXT', 'text'],
  ] as const)('reads %s as %s', (value, format) =>
    expect(logFormatFromEnv({ NETLEDGER_LOG_FORMAT: value }, 'text')).toBe(format),
  );

  it.each(['yaml', ''])('refuses %j, naming it', (value) => {
    const read = (): unknown => logFormatFromEnv({ NETLEDGER_LOG_FORMAT: value }, 'json');
    expect(read).toThrow(LogFormatError);
    expect(read).toThrow(`NETLEDGER_LOG_FORMAT ${value}: not one of text, json`);
  });
});
