import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTempDir } from '@netledger/testkit';

const appDir = join(import.meta.dirname, '..');
const bin = join(appDir, 'dist', 'netledgerctl.mjs');
let dir: { path: string; remove: () => Promise<void> };

beforeAll(async () => {
  // Build the bundle this test runs (the same command as `pnpm build`).
  execFileSync(
    'node',
    ['../../scripts/bundle-app.mjs', 'src/main.ts', 'netledgerctl', '--external', 'etcd3'],
    {
      cwd: appDir,
      stdio: 'inherit',
    },
  );
  dir = await createTempDir('netledgerctl-bin-');
}, 120_000);
afterAll(async () => {
  await dir?.remove();
});

function ctl(args: string[], input?: string) {
  const env = { PATH: process.env.PATH ?? '', NETLEDGER_DATASTORE_PATH: join(dir.path, 'ds.json') };
  const r = spawnSync('node', [bin, ...args], {
    env,
    encoding: 'utf8',
    ...(input !== undefined && { input }),
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

// Each step spawns the real binary (a Node start-up each): give the flows room on a loaded machine.
describe('bin/netledgerctl', () => {
  it('creates a pool, assigns on two nodes, shows blocks and checks', () => {
    expect(
      ctl([
        'ippool',
        'create',
        '--name',
        'default',
        '--cidr',
        '10.244.0.0/16',
        '--block-size',
        '29',
      ]),
    ).toMatchObject({
      code: 0,
      stdout: 'Successfully created IPPool default (10.244.0.0/16)\n',
    });
    for (const node of ['node-1', 'node-2']) expect(ctl(['node', 'create', node]).code).toBe(0);
    const pods = [
      ['node-1', 'web-0'],
      ['node-1', 'web-1'],
      ['node-1', 'web-2'],
      ['node-2', 'db-0'],
    ];
    for (const [node, pod] of pods) {
      const r = ctl([
        'ipam',
        'assign',
        '--node',
        node!,
        '--handle',
        `k8s-pod-network.${pod}`,
        '--attr',
        `namespace=default`,
        '--attr',
        `pod=${pod}`,
        '--attr',
        `node=${node}`,
      ]);
      expect(r).toMatchObject({ code: 0, stderr: '' });
      expect(r.stdout).toMatch(/^10\.244\.\d+\.\d+\/29\n$/);
    }
    const show = ctl(['ipam', 'show', '--show-blocks']);
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(
      /\| IP Pool {2}\| 10\.244\.0\.0\/16 +\| +65536 \| +4 \(0%\) \| +0 \(0%\) \| 65532 \(100%\) \|/,
    );
    expect(show.stdout.match(/\| Block {4}\|/g)).toHaveLength(2);
    expect(show.stdout).toMatch(/\| +8 \| +3 \(38%\) \| +0 \(0%\) \| +5 \(62%\) \|/);
    const check = ctl(['ipam', 'check']);
    expect(check).toMatchObject({ code: 0, stderr: '' });
    expect(check.stdout).toContain('Check complete; found 0 problems.\n');
  }, 120_000);

  it('gives one line on stderr and a non-zero exit for bad input', () => {
    expect(ctl(['ipam', 'show', '--nope'])).toMatchObject({ code: 2, stdout: '' });
    expect(ctl(['ippool', 'create', '--name', 'x', '--cidr', '10.0.0.0/99']).stderr).toMatch(
      /^Error: [^\n]*CIDR[^\n]*\n$/,
    );
    const missing = spawnSync('node', [bin, 'ipam', 'show'], {
      env: {
        PATH: process.env.PATH ?? '',
        NETLEDGER_DATASTORE_PATH: join(dir.path, 'none', 'ds.json'),
      },
      encoding: 'utf8',
    });
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/^Error: no datastore at [^\n]+\n$/);
    expect(ctl(['--help']).stdout).toContain('datastore migrate export');
  }, 120_000);

  it('version names the commit the binary was built from, and the store it reads', () => {
    const commit = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], {
      cwd: appDir,
      encoding: 'utf8',
    }).trim();
    expect(ctl(['node', 'create', 'node-version']).code).toBe(0);
    expect(ctl(['version'])).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(
        new RegExp(`^Client Version: +v[^\n]+\nGit commit: +${commit}\nDatastore Type: +file\n`),
      ) as string,
    });
  });
});
