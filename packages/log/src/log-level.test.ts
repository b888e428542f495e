import { describe, expect, it } from 'vitest';
import { LOG_LEVELS, levelPasses, parseLogLevel } from './log-level.js';

describe('parseLogLevel', () => {
  it.each([
    ['panic', 'panic'],
    ['FATAL', 'fatal'],
    ['Error', 'error'],
    ['warning', 'warning'],
    ['WARN', 'warning'],
    ['info', 'info'],
    ['debug', 'debug'],
    ['trace', 'trace'],
  ])('%s is %s', (text, level) => expect(parseLogLevel(text)).toBe(level));

  it.each(['', 'loud', 'warnings', 'none', 'constructor', 'toString'])('%j is no level', (text) =>
    expect(parseLogLevel(text)).toBeUndefined(),
  );
});

describe('levelPasses', () => {
  it('passes a level and everything more severe, nothing less', () => {
    const passing = (threshold: (typeof LOG_LEVELS)[number]) =>
      LOG_LEVELS.filter((l) => levelPasses(l, threshold));
    expect(passing('warning')).toEqual(['panic', 'fatal', 'error', 'warning']);
    expect(passing('trace')).toEqual(LOG_LEVELS);
    expect(passing('panic')).toEqual(['panic']);
    expect(levelPasses('warn', 'warning')).toBe(true);
    expect(levelPasses('info', 'warn')).toBe(false);
  });
});
