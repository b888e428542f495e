import { execFileSync } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createTempDir } from '@netledger/testkit';
import { describe, expect, it } from 'vitest';
import { createFileDatastore } from './file-datastore.js';
import { openError } from './test-open-error.js';

const KEY = { kind: 'IPAMHandle', handleId: 'h1' } as const;
const VALUE = { handleId: 'h1', block: { '10.0.0.0/26': 1 }, deleted: false };

/** True when this process can make a directory immutable (root on ext4, xfs, btrfs...). */
function canChattr(dir: string): boolean {
  try {
    execFileSync('chattr', ['+i', dir], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

// An integration test: it needs root and e2fsprogs, so `pnpm test:fast` leaves it out.
describe('file datastore on an immutable directory', () => {
  it('refuses an immutable (chattr +i) directory as read-only, for a new or an existing store; opened read-only, the existing one reads', async () => {
    const dir = await createTempDir('netledger-immutable-');
    const ro = join(dir.path, 'ro');
    try {
      await mkdir(ro);
      const existing = await createFileDatastore({ path: join(ro, 'old.json') });
      await existing.create({ key: KEY, value: VALUE });
      await existing.close();
      // Never skipped: without chattr (or as non-root) this fails and says what is missing.
      if (!canChattr(ro)) {
        throw new Error(
          'chattr +i failed: run as root with e2fsprogs installed (apt-get install -y e2fsprogs)',
        );
      }
      try {
        for (const p of [join(ro, 'new.json'), join(ro, 'old.json')]) {
          const error = await openError(p);
          expect(error.code).toBe('Unavailable');
          expect(error.message.startsWith(`${p}: read-only`)).toBe(true);
        }
        // Opened read-only, the existing store reads: no lock or temp file is needed.
        const reader = await createFileDatastore({ path: join(ro, 'old.json'), readOnly: true });
        try {
          expect((await reader.get(KEY)).value).toEqual(VALUE);
        } finally {
          await reader.close();
        }
      } finally {
        execFileSync('chattr', ['-i', ro]);
      }
    } finally {
      await dir.remove();
    }
  });
});
