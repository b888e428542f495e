import { execFileSync } from 'node:child_process';
import { readFileSync, readlinkSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createTempDir } from '@netledger/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { createTarArchive } from './tar-archive.js';
import type { TarEntry } from './tar-archive.js';

const DEEP = `${'d'.repeat(60)}/${'e'.repeat(60)}`;
const LONG = `${DEEP}/${'f'.repeat(60)}`;
const ENTRIES: TarEntry[] = [
  { kind: 'file', path: 'usr/local/bin/tool', mode: 0o755, content: Buffer.from('#!tool\n') },
  { kind: 'dir', path: 'usr', mode: 0o755 },
  { kind: 'dir', path: 'usr/local', mode: 0o755 },
  { kind: 'dir', path: 'usr/local/bin', mode: 0o755 },
  { kind: 'dir', path: 'tmp', mode: 0o1777 },
  { kind: 'dir', path: 'home', mode: 0o755 },
  { kind: 'dir', path: 'home/nonroot', mode: 0o750, owner: 65532 },
  {
    kind: 'file',
    path: 'home/nonroot/big',
    mode: 0o600,
    content: Buffer.alloc(1025, 7),
    owner: 65532,
  },
  { kind: 'symlink', path: 'usr/local/bin/alias', target: '/usr/local/bin/tool' },
  { kind: 'dir', path: 'd'.repeat(60), mode: 0o755 },
  { kind: 'dir', path: DEEP, mode: 0o755 },
  { kind: 'file', path: LONG, mode: 0o644, content: Buffer.from('deep\n') },
];

let tmp: { path: string; remove: () => Promise<void> } | undefined;
afterEach(async () => {
  await tmp?.remove();
  tmp = undefined;
});

describe('createTarArchive', () => {
  it('GNU tar reads every entry back: types, modes, owners, link targets, the epoch, contents', async () => {
    tmp = await createTempDir('netledger-tar-');
    const archive = join(tmp.path, 'a.tar');
    execFileSync('sh', ['-c', 'cat > "$1"', 'sh', archive], { input: createTarArchive(ENTRIES) });
    const listing = execFileSync('tar', ['--numeric-owner', '--full-time', '-tvf', archive], {
      encoding: 'utf8',
      env: { TZ: 'UTC' },
    });
    expect(
      listing
        .trim()
        .split('\n')
        .map((l) => l.replace(/ +/g, ' ')),
    ).toEqual([
      `drwxr-xr-x 0/0 0 1970-01-01 00:00:00 ${'d'.repeat(60)}/`,
      `drwxr-xr-x 0/0 0 1970-01-01 00:00:00 ${DEEP}/`,
      `-rw-r--r-- 0/0 5 1970-01-01 00:00:00 ${LONG}`,
      'drwxr-xr-x 0/0 0 1970-01-01 00:00:00 home/',
      'drwxr-x--- 65532/65532 0 1970-01-01 00:00:00 home/nonroot/',
      '-rw------- 65532/65532 1025 1970-01-01 00:00:00 home/nonroot/big',
      'drwxrwxrwt 0/0 0 1970-01-01 00:00:00 tmp/',
      'drwxr-xr-x 0/0 0 1970-01-01 00:00:00 usr/',
      'drwxr-xr-x 0/0 0 1970-01-01 00:00:00 usr/local/',
      'drwxr-xr-x 0/0 0 1970-01-01 00:00:00 usr/local/bin/',
      'lrwxrwxrwx 0/0 0 1970-01-01 00:00:00 usr/local/bin/alias -> /usr/local/bin/tool',
      '-rwxr-xr-x 0/0 7 1970-01-01 00:00:00 usr/local/bin/tool',
    ]);
    const out = join(tmp.path, 'x');
    execFileSync('mkdir', [out]);
    execFileSync('tar', ['-xf', archive, '-C', out]);
    expect(readFileSync(join(out, 'home/nonroot/big'))).toEqual(Buffer.alloc(1025, 7));
    expect(readFileSync(join(out, LONG), 'utf8')).toBe('deep\n');
    expect(readlinkSync(join(out, 'usr/local/bin/alias'))).toBe('/usr/local/bin/tool');
    expect(statSync(join(out, 'usr/local/bin/tool')).mode & 0o7777).toBe(0o755);
  });

  it('is the same bytes whatever order the entries come in', () => {
    expect(createTarArchive([...ENTRIES].reverse()).equals(createTarArchive(ENTRIES))).toBe(true);
  });

  it.each([
    [
      [
        { kind: 'dir', path: 'a', mode: 0o755 },
        { kind: 'dir', path: 'a', mode: 0o700 },
      ],
      /a is given twice/,
    ],
    [[{ kind: 'dir', path: '/abs', mode: 0o755 }], /"\/abs" is not a relative, normalised path/],
    [[{ kind: 'dir', path: 'a/../b', mode: 0o755 }], /not a relative, normalised path/],
    [
      [{ kind: 'dir', path: `${'p'.repeat(156)}/${'n'.repeat(10)}`, mode: 0o755 }],
      /too long for a ustar header/,
    ],
    [[{ kind: 'symlink', path: 'l', target: `/${'t'.repeat(100)}` }], /link target .* is too long/],
  ] as [TarEntry[], RegExp][])('refuses %#', (entries, message) => {
    expect(() => createTarArchive(entries)).toThrow(message);
  });
});
