import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newcomerEnv } from './newcomer-env.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const HOUR = 60 * 60 * 1000;
/** Where netledger-ipam may create files by default (docs/cni.md, "Where files may live"). */
const DEFAULT_ROOTS = ['/tmp', '/var/lib/netledger', '/run/netledger'];

/** Runs `npm run <script>` in `cwd`, its output to `log`; resolves with exit status and seconds. */
function npmRun(options: {
  cwd: string;
  script: string;
  env: NodeJS.ProcessEnv;
  log: string;
}): Promise<{ status: number | null; seconds: number }> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const out = createWriteStream(options.log);
    const child = spawn('npm', ['run', options.script], {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.pipe(out, { end: false });
    child.stderr.pipe(out, { end: false });
    child.on('error', reject);
    child.on('close', (status) => {
      out.end(() => resolve({ status, seconds: (Date.now() - started) / 1000 }));
    });
  });
}

/** The last lines of a log, for a failure message. */
async function tail(log: string, lines = 40): Promise<string> {
  return (await readFile(log, 'utf8')).split('\n').slice(-lines).join('\n');
}

// The README promises a newcomer two commands on a machine with Node.js and npm only. This runs
// the first in a fresh clone of this checkout's HEAD, outside every path root the plugin allows by
// default, with no pnpm on PATH and none of the variables a test runner sets: it installs the
// pinned pnpm and the dependencies, builds, and runs the main job. The second, `npm test`, is what
// CI runs on a clean clone; running the whole suite again here would double its time.
describe("the README's set-up on a fresh clone with no pnpm on PATH", () => {
  let dir: string;
  let clone: string;
  const env = {
    ...newcomerEnv({ env: process.env }),
  };

  beforeAll(async () => {
    // In the home directory, as a newcomer clones: not under the plugin's default path roots
    // (/tmp among them), so a demo that writes where those roots forbid fails here too.
    const base = join(homedir(), '.cache', 'netledger');
    expect(DEFAULT_ROOTS.some((r) => base === r || base.startsWith(`${r}/`))).toBe(false);
    await mkdir(base, { recursive: true });
    dir = await mkdtemp(join(base, 'fresh-clone-'));
    clone = join(dir, 'netledger');
    const r = spawnSync('git', ['clone', '--quiet', root, clone], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`git clone ${root} failed: ${r.stderr}`);
    const dirty = spawnSync('git', ['status', '--porcelain'], { cwd: root, encoding: 'utf8' });
    if (dirty.stdout.trim() !== '') {
      console.log('fresh clone: the clone holds HEAD; uncommitted changes are not in it');
    }
    expect(spawnSync('pnpm', ['--version'], { env }).error).toMatchObject({ code: 'ENOENT' });
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it(
    '`npm run demo` runs the main job to a clean check',
    async () => {
      const log = join(dir, 'demo.log');
      const r = await npmRun({ cwd: clone, script: 'demo', env, log });
      console.log(`fresh clone: npm run demo exited ${r.status} after ${r.seconds.toFixed(0)} s`);
      if (r.status !== 0) throw new Error(`npm run demo exited ${r.status}:\n${await tail(log)}`);
      expect(await readFile(log, 'utf8')).toContain('Check complete; found 0 problems.');
    },
    HOUR,
  );
});
