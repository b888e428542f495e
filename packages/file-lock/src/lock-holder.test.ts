import { describe, expect, it } from 'vitest';
import type { LockHolder, ProcessProbe } from './lock-holder.js';
import { formatLockHolder, judgeHolder, parseLockHolder, parseProcStat } from './lock-holder.js';

const holder: LockHolder = { pid: 42, startTime: '1000', pidNamespace: 'pid:[1]', nonce: 'n' };

describe('lock holder records', () => {
  it('round-trips through the lock file text, one line of four fields', () => {
    expect(formatLockHolder(holder)).toBe('42 1000 pid:[1] n\n');
    expect(parseLockHolder(formatLockHolder(holder))).toEqual(holder);
    expect(formatLockHolder({ pid: 7, nonce: 'm' })).toBe('7 - - m\n');
    expect(parseLockHolder('7 - - m\n')).toEqual({ pid: 7, nonce: 'm' });
  });

  it.each([
    ['the file store before this package (JSON)', JSON.stringify(holder)],
    ['the CNI host lock before this package (no nonce)', '42 1000 pid:[1]\n'],
  ])('reads the records of %s', (_why, text) => {
    expect(parseLockHolder(text)).toMatchObject({
      pid: 42,
      startTime: '1000',
      pidNamespace: 'pid:[1]',
    });
  });

  it.each([
    '',
    'not json',
    '{"pid":"42","nonce":"n"}',
    '{"pid":0,"nonce":"n"}',
    '{"pid":4}',
    'null',
    '42',
    '42 1000',
    '42 x pid:[1] n',
    '-3 1000 pid:[1] n',
    '42 1000 pid:[1] n extra',
  ])('rejects %j', (text) => {
    expect(parseLockHolder(text)).toBeUndefined();
  });

  it('reads state and start time from /proc/<pid>/stat, even with ") " in the command name', () => {
    const fields = Array.from({ length: 50 }, (_, i) => String(i + 3));
    fields[0] = 'S';
    fields[19] = '777';
    expect(parseProcStat(`42 (odd) name) ${fields.join(' ')}`)).toEqual({
      state: 'S',
      startTime: '777',
    });
    expect(parseProcStat('garbage')).toBeUndefined();
  });
});

describe('judgeHolder', () => {
  it.each<{ why: string; probe: ProcessProbe; ns?: string; want: string }>([
    {
      why: 'running, same start time',
      probe: { exists: true, state: 'S', startTime: '1000' },
      want: 'alive',
    },
    { why: 'no such pid', probe: { exists: false }, want: 'dead' },
    { why: 'a zombie', probe: { exists: true, state: 'Z', startTime: '1000' }, want: 'dead' },
    {
      why: 'pid reused by a later process',
      probe: { exists: true, state: 'R', startTime: '2000' },
      want: 'dead',
    },
    { why: 'exists, /proc unreadable', probe: { exists: true }, want: 'alive' },
    { why: 'another pid namespace', probe: { exists: false }, ns: 'pid:[2]', want: 'unknown' },
  ])('$why -> $want', ({ probe, ns, want }) => {
    expect(judgeHolder(holder, ns ?? 'pid:[1]', probe)).toBe(want);
  });
});
