// The rotating log file under many processes at once: every line written is in exactly one file,
// whole; the files stay within the size (plus what writers racing the rotation add) and count.
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTempDir } from '@netledger/testkit';
import { build } from 'esbuild';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRotatingFile } from './rotating-file.js';
import { parseBackupName, splitLogPath } from './rotation-plan.js';

let tmp: { path: string; remove: () => Promise<void> };
let workerBundle: { path: string; remove: () => Promise<void> };
let writer: string;

beforeAll(async () => {
  // A child process that appends LINES lines through createRotatingFile, as a plugin run does.
  workerBundle = await createTempDir('rotating-file-worker-');
  const entry = join(workerBundle.path, 'worker.ts');
  writeFileSync(
    entry,
    `import { createRotatingFile } from ${JSON.stringify(join(import.meta.dirname, 'rotating-file.ts'))};
const [path, id, lines, maxSize, maxCount] = process.argv.slice(2);
const f = createRotatingFile({ path, maxSizeBytes: Number(maxSize), maxCount: Number(maxCount), maxAgeMs: 0 });
const pad = 'x'.repeat(40 + (Number(id) % 7) * 13);
for (let i = 0; i < Number(lines); i++) f.write(\`w\${id} \${i} \${pad} end\\n\`);
`,
  );
  writer = join(workerBundle.path, 'worker.mjs');
  await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: writer,
    logLevel: 'warning',
  });
});
afterAll(() => workerBundle.remove());
beforeEach(async () => {
  tmp = await createTempDir('rotating-file-');
});
afterEach(() => tmp.remove());

function runWriters(o: {
  path: string;
  writers: number;
  lines: number;
  maxSize: number;
  maxCount: number;
}) {
  return Promise.all(
    Array.from(
      { length: o.writers },
      (_, id) =>
        new Promise<void>((resolve, reject) => {
          const child = spawn(
            process.execPath,
            [writer, o.path, String(id), String(o.lines), String(o.maxSize), String(o.maxCount)],
            { stdio: ['ignore', 'ignore', 'pipe'] },
          );
          let err = '';
          child.stderr.on('data', (c: Buffer) => (err += c.toString()));
          child.once('exit', (code) =>
            code === 0 ? resolve() : reject(new Error(`writer ${id}: ${code} ${err}`)),
          );
        }),
    ),
  );
}

/** The log's files (the current one and its backups) and every line in them. */
function readLog(path: string) {
  const file = splitLogPath(path);
  const names = readdirSync(file.dir).filter((n) => n === 'cni.log' || parseBackupName(file, n));
  const lines = names.flatMap((n) => {
    const text = readFileSync(join(file.dir, n), 'utf8');
    expect(text.endsWith('\n'), `${n} ends mid-line`).toBe(true);
    return text.slice(0, -1).split('\n');
  });
  return { names, sizes: names.map((n) => statSync(join(file.dir, n)).size), lines };
}

describe('createRotatingFile', () => {
  it('rotates before a line would pass the size, keeps maxCount backups, newest kept', () => {
    const path = join(tmp.path, 'log', 'cni.log');
    let t = Date.parse('2024-05-01T00:00:00Z');
    const f = createRotatingFile({
      path,
      maxSizeBytes: 100,
      maxCount: 2,
      maxAgeMs: 0,
      now: () => (t += 1000),
    });
    for (let i = 0; i < 10; i++) f.write(`line ${i} ${'.'.repeat(40)}\n`); // 49 bytes: two per file
    const { names, sizes, lines } = readLog(path);
    expect(names.length).toBe(3); // cni.log and two backups
    expect(sizes.every((s) => s <= 100)).toBe(true);
    expect(lines.map((l) => l.split(' ')[1]).sort()).toEqual(['4', '5', '6', '7', '8', '9']);
  });

  it('removes backups older than maxAge when it rotates', () => {
    const path = join(tmp.path, 'cni.log');
    const day = 86_400_000;
    let t = Date.parse('2024-05-01T00:00:00Z');
    const f = createRotatingFile({
      path,
      maxSizeBytes: 10,
      maxCount: 100,
      maxAgeMs: 1.5 * day,
      now: () => t,
    });
    for (let i = 0; i < 5; i++) {
      f.write('0123456789\n'); // 11 bytes: every line after the first rotates
      t += day;
    }
    // Rotated on days 1 to 4; at day 4, those of days 1 and 2 are older than 1.5 days.
    const { names, lines } = readLog(path);
    expect(names.filter((n) => n !== 'cni.log').length).toBe(2);
    expect(lines.length).toBe(3);
  });

  it('refuses a size or count that is not positive, naming the file', () => {
    expect(() =>
      createRotatingFile({
        path: join(tmp.path, 'x.log'),
        maxSizeBytes: 0,
        maxCount: 1,
        maxAgeMs: 0,
      }),
    ).toThrow(/x\.log/);
    expect(() =>
      createRotatingFile({
        path: join(tmp.path, 'x.log'),
        maxSizeBytes: 1,
        maxCount: 0,
        maxAgeMs: 0,
      }),
    ).toThrow(RangeError);
  });

  it('8 processes writing one file at once: no line lost, doubled or torn across 100+ rotations', async () => {
    const path = join(tmp.path, 'cni.log');
    const writers = 8;
    const each = 3000;
    const maxSize = 16 * 1024;
    await runWriters({ path, writers, lines: each, maxSize, maxCount: 10_000 });
    const { names, sizes, lines } = readLog(path);
    expect(names.length).toBeGreaterThan(100);
    expect(lines.length).toBe(writers * each);
    expect(new Set(lines).size).toBe(lines.length);
    for (const l of lines) expect(l).toMatch(/^w\d \d+ x+ end$/);
    for (let id = 0; id < writers; id++) {
      const mine = lines.filter((l) => l.startsWith(`w${id} `)).map((l) => Number(l.split(' ')[1]));
      expect(mine.sort((a, b) => a - b)).toEqual(Array.from({ length: each }, (_, i) => i));
    }
    // A file passes the size only by lines of writers that measured it just before it moved.
    const longest = Math.max(...lines.map((l) => l.length + 1));
    expect(Math.max(...sizes)).toBeLessThanOrEqual(maxSize + (writers - 1) * longest);
  });

  it('8 processes at once with maxCount 3: at most 3 backups and the current file, every line whole', async () => {
    const path = join(tmp.path, 'cni.log');
    await runWriters({ path, writers: 8, lines: 2000, maxSize: 8 * 1024, maxCount: 3 });
    const { names, lines } = readLog(path);
    expect(names).toContain('cni.log');
    expect(names.length).toBeLessThanOrEqual(4);
    for (const l of lines) expect(l).toMatch(/^w\d \d+ x+ end$/);
  });
});
