import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createTempDir } from '@netledger/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { INSTALL_USAGE } from './install-args.js';
import { runInstall } from './run-install.js';
import type { InstallIo } from './run-install.js';

// The exit statuses and messages of `netledger-ipam install` short of laying files down (the
// install itself runs in apps/cni-plugin/test/install.int.test.ts, from the built plugin).
let dir: { path: string; remove: () => Promise<void> };

beforeEach(async () => {
  dir = await createTempDir('netledger-run-install-');
});
afterEach(async () => {
  await dir.remove();
});

function run(argv: string[], io: Partial<InstallIo> = {}) {
  let out = '';
  let err = '';
  const status = runInstall(argv, {
    execArgv: [],
    node: process.execPath,
    snapshotFlags: [],
    cwd: dir.path,
    print: (t) => (out += t),
    printErr: (t) => (err += t),
    ...io,
  });
  return { status, out, err };
}

describe('runInstall', () => {
  it.each([['--help'], ['-h']])('%s prints the usage on stdout and exits 0', (flag) => {
    expect(run(['--bin-dir', 'x', flag])).toEqual({ status: 0, out: INSTALL_USAGE, err: '' });
  });

  it('a usage error exits 2 with the message and the usage on stderr, writing nothing', () => {
    expect(run(['--bin-dir', 'bin', '--force'], { selfDir: dir.path })).toEqual({
      status: 2,
      out: '',
      err: `netledger-ipam install: unknown argument "--force"\n\n${INSTALL_USAGE}`,
    });
    expect(existsSync(join(dir.path, 'bin'))).toBe(false);
  });

  it.each<[string, (src: string) => Partial<InstallIo>, RegExp]>([
    ['no blob and no module directory', () => ({}), /cannot tell where the running plugin is/],
    [
      'a blob whose directory has no bundle',
      (src) => ({ execArgv: ['--snapshot-blob', join(src, 'netledger-ipam.blob')] }),
      /\/src\/netledger-ipam\.mjs is missing: nothing to install from/,
    ],
    [
      'a module directory without the bundle',
      (src) => ({ selfDir: src }),
      /\/src\/netledger-ipam\.mjs is missing: nothing to install from/,
    ],
  ])('%s exits 1 with the reason on stderr, writing nothing', (_, io, why) => {
    const r = run(['--bin-dir', 'bin'], io(join(dir.path, 'src')));
    expect(r).toMatchObject({ status: 1, out: '' });
    expect(r.err).toMatch(/^netledger-ipam install failed: /);
    expect(r.err).toMatch(why);
    expect(existsSync(join(dir.path, 'bin'))).toBe(false);
  });
});
