import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { createTempDir } from '@netledger/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { writeFd } from './write-fd.js';

let dir: { path: string; remove: () => Promise<void> } | undefined;
afterEach(async () => {
  await dir?.remove();
  dir = undefined;
});

/** Everything `fd` (non-blocking) holds now. */
function drain(fd: number): Buffer {
  const parts: Buffer[] = [];
  for (;;) {
    const buf = Buffer.alloc(65_536);
    try {
      const n = readSync(fd, buf);
      if (n === 0) break;
      parts.push(buf.subarray(0, n));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EAGAIN') break;
      throw e;
    }
  }
  return Buffer.concat(parts);
}

/** Runs `use` on a FIFO opened read-write (no other reader needed) and non-blocking (full is EAGAIN). */
async function withFifo(use: (fd: number) => void): Promise<void> {
  dir = await createTempDir('netledger-write-fd-');
  const fifo = join(dir.path, 'fifo');
  execFileSync('mkfifo', [fifo]);
  const fd = openSync(fifo, constants.O_RDWR | constants.O_NONBLOCK);
  try {
    use(fd);
  } finally {
    closeSync(fd);
  }
}

describe('writeFd', () => {
  it('writes to the descriptor what it takes and hands the rest of a full pipe on', async () => {
    await withFifo((fd) => {
      // Larger than a pipe's 64 KiB, and not ASCII, so what was written is counted in bytes.
      const text = 'é'.repeat(100_000);
      const handedOn: Buffer[] = [];
      writeFd(fd, text, (rest) => handedOn.push(rest));
      expect(handedOn).toHaveLength(1);
      const written = drain(fd);
      expect(written.length).toBeGreaterThan(0);
      expect(Buffer.concat([written, ...handedOn]).toString('utf8')).toBe(text);
    });
  });

  it('writes everything itself when the descriptor takes it', async () => {
    await withFifo((fd) => {
      const handedOn: Buffer[] = [];
      writeFd(fd, '{"cniVersion":"1.1.0"}\n', (rest) => handedOn.push(rest));
      expect(handedOn).toEqual([]);
      expect(drain(fd).toString('utf8')).toBe('{"cniVersion":"1.1.0"}\n');
    });
  });

  it('drops the output, without throwing, when the descriptor is not open (EBADF)', () => {
    const handedOn: Buffer[] = [];
    expect(() => writeFd(999_999, 'lost', (rest) => handedOn.push(rest))).not.toThrow();
    expect(handedOn).toEqual([]);
  });
});
