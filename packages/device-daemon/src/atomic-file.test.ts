import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeFileAtomic } from './atomic-file.js';

let dir: string;
let umask: number;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nl-atomic-'));
  // The loosest umask: the modes must come from the code, not from the environment.
  umask = process.umask(0);
});
afterEach(async () => {
  process.umask(umask);
  await rm(dir, { recursive: true, force: true });
});

const mode = async (p: string) => (await stat(p)).mode & 0o777;

describe('writeFileAtomic', () => {
  it('writes the file 0600 in directories it creates 0700', async () => {
    const data = join(dir, 'var', 'lib', 'netledger');
    await writeFileAtomic({ dir: data, name: 'leases.json', text: '{}' });
    expect(await mode(join(data, 'leases.json'))).toBe(0o600);
    expect(await mode(data)).toBe(0o700);
    expect(await mode(join(dir, 'var'))).toBe(0o700);
  });

  it('writes 0600 even over a temp file a crash left with a looser mode', async () => {
    await mkdir(join(dir, 'd'));
    await writeFile(join(dir, 'd', 'leases.json.tmp'), 'half', { mode: 0o644 });
    await writeFileAtomic({ dir: join(dir, 'd'), name: 'leases.json', text: '{}' });
    expect(await mode(join(dir, 'd', 'leases.json'))).toBe(0o600);
  });
});
