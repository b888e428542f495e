import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readNodenameFile } from './read-nodename-file.js';

describe('readNodenameFile', () => {
  let dir: string;
  let said: string[];
  const logError = (m: string) => void said.push(m);
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'nodename-'));
    said = [];
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('returns the text of the file', async () => {
    writeFileSync(join(dir, 'nodename'), 'node-1\n');
    expect(await readNodenameFile(join(dir, 'nodename'), logError)).toBe('node-1\n');
    expect(said).toEqual([]);
  });

  it('no file is no node name, silently', async () => {
    expect(await readNodenameFile(join(dir, 'missing'), logError)).toBeUndefined();
    expect(said).toEqual([]);
  });

  it('a file that cannot be read is logged as an error, then taken as no node name', async () => {
    // A directory: EISDIR whoever runs the test (root reads any file).
    expect(await readNodenameFile(dir, logError)).toBeUndefined();
    expect(said).toEqual([`Failed to read ${dir}: EISDIR: illegal operation on a directory, read`]);
  });
});
