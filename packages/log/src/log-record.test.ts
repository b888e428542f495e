import { describe, expect, it } from 'vitest';
import { formatLogRecord, parseLogFormat } from './log-record.js';

const at = Date.parse('2024-05-01T10:00:00.123Z');

describe('formatLogRecord', () => {
  it('json: ts, level, msg, then the defined fields', () => {
    const line = formatLogRecord(
      { ts: at, level: 'warning', msg: 'x "y"', fields: { a: 1, b: undefined, c: 'd' } },
      'json',
    );
    expect(line).toBe(
      '{"ts":"2024-05-01T10:00:00.123Z","level":"warning","msg":"x \\"y\\"","a":1,"c":"d"}\n',
    );
  });

  it('text: capitals in brackets, fields as key=value, quoted when not one word', () => {
    const line = formatLogRecord(
      {
        ts: at,
        level: 'error',
        msg: 'two\nlines',
        fields: { pool: '10.0.0.0/24', why: 'no room', n: 3, error: { code: 'X' } },
      },
      'text',
    );
    expect(line).toBe(
      '2024-05-01T10:00:00.123Z [ERROR] two\\nlines pool=10.0.0.0/24 why="no room" n=3 error={"code":"X"}\n',
    );
  });

  it('never throws and never breaks a line: errors, bigints, cycles, newlines in fields', () => {
    const cycle: Record<string, unknown> = {};
    cycle['self'] = cycle;
    const err = Object.assign(new Error('boom'), { code: 'EIO' });
    for (const format of ['json', 'text'] as const) {
      const line = formatLogRecord(
        { ts: at, level: 'info', msg: 'm', fields: { err, big: 10n, cycle, s: 'a\nb' } },
        format,
      );
      expect(line.endsWith('\n')).toBe(true);
      expect(line.slice(0, -1)).not.toContain('\n');
      if (format === 'json')
        expect(JSON.parse(line)).toMatchObject({
          err: { message: 'boom', code: 'EIO' },
          big: '10',
        });
    }
  });

  it('does not let a field replace ts, level or msg', () => {
    const line = formatLogRecord(
      { ts: at, level: 'info', msg: 'real', fields: { msg: 'fake', level: 'panic' } },
      'json',
    );
    expect(JSON.parse(line)).toMatchObject({ level: 'info', msg: 'real' });
  });
});

describe('parseLogFormat', () => {
  it.each([
    ['json', 'json'],
    ['TEXT', 'text'],
    ['yaml', undefined],
  ])('%s', (text, format) => expect(parseLogFormat(text)).toBe(format));
});
