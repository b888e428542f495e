import { describe, expect, it } from 'vitest';
import type { CtlIo } from './command-spec.js';
import { setDatastoreLock } from '../commands/datastore-lock.js';
import { runCli } from '../test-support/run-cli.js';
import { memoryStore } from '../test-support/seed.js';
import { seedMigration } from '../test-support/seed-migration.js';

// `datastore migrate export` and `import` report progress on stderr: a bar on a terminal, lines
// every 5 s elsewhere once a run lasts that long, nothing for a quick run (stdout unchanged).
async function exported(): Promise<string> {
  const src = memoryStore();
  await seedMigration(src.ipam, src.datastore);
  await setDatastoreLock(src.datastore, { locked: true, newGuid: () => 'guid-src' });
  const r = await runCli(['datastore', 'migrate', 'export'], {
    io: { openDatastore: () => Promise.resolve(src.datastore), stderrIsTty: true },
  });
  expect(r.code).toBe(0);
  // A bar redrawn in place over the eight kinds read, its line ended at the end.
  expect(r.stderr).toMatch(/^\rexport \[[#.]{30}\] 1\/8 12% \d+ objects/);
  expect(r.stderr).toMatch(/\rexport \[#{30}\] 8\/8 100% \d+ objects *\n$/);
  expect(r.stdout).toContain('===\n');
  return r.stdout;
}

/** Runs `datastore migrate import` of `text` into an empty store. */
function importInto(text: string, io: Partial<CtlIo>) {
  const dst = memoryStore();
  return runCli(['datastore', 'migrate', 'import', '-f', '-'], {
    stdin: text,
    io: { openDatastore: () => Promise.resolve(dst.datastore), ...io },
  });
}

describe('datastore migrate progress', () => {
  it('draws a bar on a terminal for export and import', async () => {
    const text = await exported();
    const r = await importInto(text, { stderrIsTty: true });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Successfully applied \d+ resource\(s\)\n/);
    const total = /\/(\d+) /.exec(r.stderr)?.[1];
    expect(r.stderr).toMatch(new RegExp(`\\rimport \\[#{30}\\] ${total}/${total} 100% *\\n$`));
  });

  it('prints a line every 5 s elsewhere, and one at the end', async () => {
    const text = await exported();
    let t = 0;
    // Each write takes "2 s" on this clock: a line every third object or so.
    const r = await importInto(text, { stderrIsTty: false, clock: { now: () => (t += 2000) } });
    expect(r.code).toBe(0);
    const lines = r.stderr.split('\n').slice(0, -1);
    expect(lines.length).toBeGreaterThan(2);
    for (const line of lines.slice(0, -1)) {
      expect(line).toMatch(/^import: \d+\/\d+ \(\d+%\)$/);
    }
    expect(lines.at(-1)).toMatch(/^import: done, (\d+)\/\1$/);
  });

  it('prints nothing elsewhere for a quick run', async () => {
    const text = await exported();
    const r = await importInto(text, { stderrIsTty: false });
    expect(r).toMatchObject({ code: 0, stderr: '' });
  });
});
