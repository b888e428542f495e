import { describe, expect, it } from 'vitest';
import { backupName, backupsToRemove, parseBackupName, splitLogPath } from './rotation-plan.js';

const file = splitLogPath('/var/log/calico/cni/cni.log');
const DAY = 86_400_000;
const t0 = Date.parse('2024-05-01T10:00:00.000Z');

describe('backup names', () => {
  it("are lumberjack's: <stem>-<UTC time>.<ext>, -<n> when taken", () => {
    expect(file).toEqual({ dir: '/var/log/calico/cni', stem: 'cni', ext: '.log' });
    expect(backupName(file, t0 + 45)).toBe('cni-2024-05-01T10-00-00.045.log');
    expect(backupName(file, t0, 2)).toBe('cni-2024-05-01T10-00-00.000-2.log');
    expect(parseBackupName(file, 'cni-2024-05-01T10-00-00.045.log')).toEqual({ at: t0 + 45, n: 0 });
    expect(parseBackupName(file, 'cni-2024-05-01T10-00-00.000-2.log')).toEqual({ at: t0, n: 2 });
  });

  it.each([
    'cni.log',
    'cni-x.log',
    'other-2024-05-01T10-00-00.000.log',
    'cni-2024-05-01T10-00-00.000.log.gz',
  ])('%s is not a backup', (name) => expect(parseBackupName(file, name)).toBeUndefined());

  it('a name without an extension', () => {
    const f = splitLogPath('plugin');
    expect(f).toEqual({ dir: '.', stem: 'plugin', ext: '' });
    expect(parseBackupName(f, backupName(f, t0))).toEqual({ at: t0, n: 0 });
  });
});

describe('backupsToRemove', () => {
  const names = [0, 1, 2, 3, 4].map((d) => backupName(file, t0 - d * DAY));
  it('keeps the newest maxCount, whatever order the directory lists them in', () => {
    expect(
      backupsToRemove(file, [...names].reverse(), { maxCount: 2, maxAgeMs: 0, now: t0 }),
    ).toEqual(names.slice(2));
  });

  it('removes those older than maxAge, and never another file', () => {
    expect(
      backupsToRemove(file, [...names, 'cni.log', 'notes.txt'], {
        maxCount: 10,
        maxAgeMs: 2.5 * DAY,
        now: t0,
      }),
    ).toEqual(names.slice(3));
  });

  it('orders backups of one millisecond by their -n', () => {
    const same = [backupName(file, t0, 1), backupName(file, t0), backupName(file, t0, 2)];
    expect(backupsToRemove(file, same, { maxCount: 1, maxAgeMs: 0, now: t0 })).toEqual([
      backupName(file, t0, 1),
      backupName(file, t0),
    ]);
  });
});
