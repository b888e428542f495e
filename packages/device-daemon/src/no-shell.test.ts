// No external command through a shell, anywhere in netledger's production code (issue #20): every
// package's and app's src/, tests and test helpers aside. The scan itself is tested first, so a
// clean result means something.
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findShellUses } from './test-shell-scan.js';

const ROOT = join(import.meta.dirname, '..', '..', '..');

/** The production TypeScript files under `dir` (no tests, no test helpers). */
function productionFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!['node_modules', 'dist', 'test-support'].includes(entry.name))
        out.push(...productionFiles(path));
    } else if (
      entry.name.endsWith('.ts') &&
      !entry.name.endsWith('.test.ts') &&
      !entry.name.startsWith('test-')
    ) {
      out.push(path);
    }
  }
  return out;
}

const SOURCES = ['apps', 'packages'].flatMap((top) =>
  readdirSync(join(ROOT, top), { withFileTypes: true })
    .filter((d) => d.isDirectory() && d.name !== 'testkit')
    .flatMap((d) => {
      try {
        return productionFiles(join(ROOT, top, d.name, 'src'));
      } catch {
        return [];
      }
    }),
);

describe('the shell scan', () => {
  it.each([
    ["import { exec } from 'node:child_process';", 'imports exec from child_process'],
    ["import { spawn, execSync as run } from 'child_process';", 'imports execSync'],
    ["import * as cp from 'node:child_process'; cp.exec('ls');", 'calls cp.exec'],
    ["import * as proc from 'node:child_process'; proc.execSync(x);", 'calls proc.execSync'],
    ["childProcess().exec('nft -f -');", 'calls childProcess().exec'],
    ["spawn('nft', args, { shell: true });", 'passes shell: true'],
    ["spawn(file, args, { stdio, shell: '/bin/sh' });", "passes shell: '"],
    ["execFile('/bin/sh', ['-c', cmd]);", 'runs a shell'],
    ["spawnSync('bash', ['-c', cmd]);", 'runs a shell'],
  ])('flags %s', (text, what) => {
    expect(
      findShellUses(text)
        .map((u) => u.what)
        .join('; '),
    ).toContain(what);
  });

  it.each([
    "import { execFile, spawn } from 'node:child_process';",
    "import type { exec } from 'node:child_process';",
    "spawn('nft', ['-f', '-'], { shell: false });",
    'const m = /x/.exec(line);',
    '// never run through a shell: true',
    "const url = 'http://x'; spawn(file, args);",
  ])('does not flag %s', (text) => {
    expect(findShellUses(text)).toEqual([]);
  });
});

describe('production code', () => {
  it('runs no external command through a shell', () => {
    const rel = SOURCES.map((f) => relative(ROOT, f));
    // The scan reaches the code that does run commands.
    expect(rel).toEqual(
      expect.arrayContaining([
        'packages/device-daemon/src/run-command.ts',
        'packages/datastore-k8s/src/exec-credential.ts',
        'packages/cni/src/install/install-plugin.ts',
        'packages/cni/src/flock-host-lock.ts',
      ]),
    );
    const found = SOURCES.flatMap((f) =>
      findShellUses(readFileSync(f, 'utf8')).map(
        (u) => `${relative(ROOT, f)}:${u.line}: ${u.what}`,
      ),
    );
    expect(found).toEqual([]);
  });
});
