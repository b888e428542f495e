import { spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTempDir } from '@netledger/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { launcherScript } from './launcher-script.js';

// The launcher's shell logic, with a fake "node" (a shell script) standing in for Node.js: which
// way it starts the plugin, how it reads the statuses, and the CNI error JSON when it cannot.
let dir: { path: string; remove: () => Promise<void> };
let launcher: string;
let calls: string;

/** A fake node: logs its arguments, answers with the status the test asked for, per mode. */
function fakeNode(snapshotStatus: number, bundleStatus: number): string {
  const node = join(dir.path, 'fake-node');
  writeFileSync(
    node,
    `#!/bin/sh
echo "$*" >> ${calls}
case "$*" in *--snapshot-blob*) exit ${snapshotStatus} ;; *) exit ${bundleStatus} ;; esac
`,
    { mode: 0o755 },
  );
  return node;
}

function install(node: string, files: { blob?: boolean; bundle?: boolean } = {}): void {
  const lib = join(dir.path, 'bin', 'netledger-ipam.d');
  mkdirSync(lib, { recursive: true });
  if (files.blob !== false) writeFileSync(join(lib, 'netledger-ipam.blob'), 'blob');
  if (files.bundle !== false) writeFileSync(join(lib, 'netledger-ipam.mjs'), '');
  launcher = join(dir.path, 'bin', 'netledger-ipam');
  writeFileSync(launcher, launcherScript({ node, flags: ['--no-sparkplug'] }), { mode: 0o755 });
  // The blob carries the node binary's mtime, as the install stamps it.
  spawnSync('touch', ['-r', node, join(lib, 'netledger-ipam.blob')]);
}

function run(env: Record<string, string> = {}) {
  const r = spawnSync(launcher, ['arg1'], {
    env: { PATH: '/usr/bin:/bin', ...env },
    encoding: 'utf8',
  });
  let json: unknown;
  try {
    json = JSON.parse(r.stdout);
  } catch {
    json = undefined;
  }
  const logged = spawnSync('cat', [calls], { encoding: 'utf8' }).stdout.trim().split('\n');
  return { status: r.status, json, calls: logged.filter((l) => l !== '') };
}

beforeEach(async () => {
  dir = await createTempDir('netledger-launcher-');
  calls = join(dir.path, 'calls');
  writeFileSync(calls, '');
});
afterEach(async () => {
  await dir.remove();
});

describe('the installed launcher', () => {
  it.each<[string, number, number, Record<string, string>, number, string[]]>([
    ['the snapshot answers', 0, 0, {}, 0, ['snapshot']],
    ['the snapshot answers a CNI error (100 + 1)', 101, 0, {}, 1, ['snapshot']],
    [
      'a snapshot that does not load (14): the bundle answers',
      14,
      0,
      {},
      0,
      ['snapshot', 'bundle'],
    ],
    ['a snapshot that aborts (134): the bundle answers', 134, 101, {}, 1, ['snapshot', 'bundle']],
    ['NODE_OPTIONS: the bundle only', 0, 0, { NODE_OPTIONS: '--inspect' }, 0, ['bundle']],
  ])('%s', (_, snapshot, bundle, env, status, ran) => {
    install(fakeNode(snapshot, bundle));
    const r = run(env);
    expect(r.status).toBe(status);
    expect(r.calls.map((c) => (c.includes('--snapshot-blob') ? 'snapshot' : 'bundle'))).toEqual(
      ran,
    );
    if (ran.includes('snapshot')) {
      expect(r.calls[0]).toBe(
        `--no-sparkplug --snapshot-blob ${dir.path}/bin/netledger-ipam.d/netledger-ipam.blob ${launcher} arg1`,
      );
    }
    if (ran.at(-1) === 'bundle') {
      expect(r.calls.at(-1)).toBe(`${dir.path}/bin/netledger-ipam.d/netledger-ipam.mjs arg1`);
    }
  });

  it.each<[string, number, Record<string, string>, { blob?: boolean; bundle?: boolean }, RegExp]>([
    [
      'Node failing before the plugin answered (1: an uncaught error)',
      1,
      { NODE_OPTIONS: '--require=/nonexistent' },
      {},
      /Node\.js exited with status 1 before the plugin answered/,
    ],
    [
      'a missing bundle when the snapshot cannot serve',
      0,
      { NODE_OPTIONS: '--inspect' },
      { bundle: false },
      /netledger-ipam\.mjs is missing or unreadable: run netledger-ipam install again/,
    ],
  ])('reports %s as CNI error JSON (999), exit 1', (_, bundle, env, files, msg) => {
    install(fakeNode(0, bundle), files);
    const r = run(env);
    expect(r.status).toBe(1);
    expect(r.json).toEqual({ code: 999, msg: expect.stringMatching(msg) });
  });

  it('reports a missing Node.js as CNI error JSON, and uses node on PATH when there is one', () => {
    install(join(dir.path, 'no-such-node'));
    // A PATH with the tools the launcher uses, but no node.
    const tools = join(dir.path, 'tools');
    mkdirSync(tools);
    symlinkSync('/usr/bin/sed', join(tools, 'sed'));
    expect(run({ PATH: tools })).toMatchObject({
      status: 1,
      json: { code: 999, msg: expect.stringContaining('no Node.js') },
    });
    const pathDir = join(dir.path, 'path');
    mkdirSync(pathDir);
    writeFileSync(join(pathDir, 'node'), `#!/bin/sh\necho "$*" >> ${calls}\nexit 0\n`, {
      mode: 0o755,
    });
    // That node is not the one the blob was stamped for: the bundle runs.
    const r = run({ PATH: `${pathDir}:${tools}` });
    expect(r).toMatchObject({ status: 0 });
    expect(r.calls).toEqual([`${dir.path}/bin/netledger-ipam.d/netledger-ipam.mjs arg1`]);
  });

  it('escapes what it quotes in the JSON', () => {
    const quoted = join(dir.path, 'a"b\\c');
    mkdirSync(quoted);
    install(fakeNode(0, 0), { bundle: false });
    const moved = join(quoted, 'netledger-ipam');
    spawnSync('cp', ['-p', launcher, moved]);
    const r = spawnSync(moved, [], {
      env: { PATH: '/usr/bin:/bin', NODE_OPTIONS: 'x' },
      encoding: 'utf8',
    });
    expect(JSON.parse(r.stdout)).toMatchObject({
      msg: expect.stringContaining('a"b\\c/netledger-ipam.d'),
    });
  });

  it.each<[string, (lib: string) => string]>([
    ['by its path', (lib) => join(lib, 'netledger-ipam')],
    [
      'through a symlink elsewhere',
      (lib) => {
        mkdirSync(join(dir.path, 'links'));
        symlinkSync(join(lib, 'netledger-ipam'), join(dir.path, 'links', 'netledger-ipam'));
        return join(dir.path, 'links', 'netledger-ipam');
      },
    ],
  ])('inside netledger-ipam.d/ (the Perl client runs it), finds its files there: %s', (_, at) => {
    install(fakeNode(0, 0));
    const lib = join(dir.path, 'bin', 'netledger-ipam.d');
    const script = launcherScript({ node: fakeNode(14, 0), flags: [], inPluginDir: true });
    expect(script).toMatch(/\nimport '\.\/netledger-ipam\.mjs';\n$/);
    writeFileSync(join(lib, 'netledger-ipam'), script, { mode: 0o755 });
    spawnSync('touch', ['-r', join(dir.path, 'fake-node'), join(lib, 'netledger-ipam.blob')]);
    launcher = at(lib);
    const r = run();
    expect(r.status).toBe(0);
    expect(r.calls).toEqual([
      `--snapshot-blob ${lib}/netledger-ipam.blob ${launcher} arg1`,
      `${lib}/netledger-ipam.mjs arg1`,
    ]);
  });

  it('beside netledger-ipam.d/ (the executable), imports the bundle there under node', () => {
    expect(launcherScript({ node: '/usr/bin/node', flags: [] })).toMatch(
      /\nimport '\.\/netledger-ipam\.d\/netledger-ipam\.mjs';\n$/,
    );
  });

  it.each([
    ['/usr/bin/node; rm -rf /', 'cannot quote'],
    ['/usr/bin/node', ''],
  ])('refuses a Node path it cannot quote for sh: %s', (node, msg) => {
    if (msg === '') expect(() => launcherScript({ node, flags: [] })).not.toThrow();
    else expect(() => launcherScript({ node, flags: [] })).toThrow(msg);
  });
});
