import { describe, expect, it } from 'vitest';
import { createLogger, silentLogger } from './logger.js';

const capture = (o: Partial<Parameters<typeof createLogger>[0]> = {}) => {
  const lines: string[] = [];
  const log = createLogger({ write: (l) => void lines.push(l), now: () => 0, ...o });
  return { log, lines };
};

describe('createLogger', () => {
  it('writes Calico level names: warn is written as warning', () => {
    const { log, lines } = capture({ format: 'json' });
    log.log('warn', 'a');
    log.warning('b');
    expect(lines.map((l) => (JSON.parse(l) as { level: string }).level)).toEqual([
      'warning',
      'warning',
    ]);
  });

  it('drops what is below its level (info by default)', () => {
    const { log, lines } = capture();
    log.debug('no');
    log.trace('no');
    log.info('yes');
    log.log('fatal', 'yes');
    expect(lines).toEqual([
      '1970-01-01T00:00:00.000Z [INFO] yes\n',
      '1970-01-01T00:00:00.000Z [FATAL] yes\n',
    ]);
    expect(log.enabled('debug')).toBe(false);
    expect(log.enabled('warn')).toBe(true);
  });

  it('a child adds its fields to every line; a call overrides them', () => {
    const { log, lines } = capture({ format: 'json', base: { pid: 7 } });
    log.child({ controller: 'ipam-gc' }).info('pass', { controller: 'other', n: 2 });
    expect(JSON.parse(lines[0]!)).toEqual({
      ts: '1970-01-01T00:00:00.000Z',
      level: 'info',
      msg: 'pass',
      pid: 7,
      controller: 'other',
      n: 2,
    });
  });

  it('the silent logger writes nothing and is enabled for nothing', () => {
    expect(silentLogger.enabled('panic')).toBe(false);
    expect(silentLogger.child({ a: 1 })).toBe(silentLogger);
  });
});
