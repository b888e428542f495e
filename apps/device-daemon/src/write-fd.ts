import { writeSync } from 'node:fs';

/**
 * Writes `text` to file descriptor `fd` with write(2) before returning, and hands what a full
 * non-blocking descriptor (EAGAIN) does not take to `whenFull`. A client verb writes its output
 * once, so it skips `process.stdout` unless it must: the first touch of that stream builds a
 * `net.Socket` for a pipe, a few milliseconds of a process that lives for a few tens. A reader
 * that is gone (EPIPE, EBADF) gets nothing: the exit status still tells the outcome.
 */
export function writeFd(fd: number, text: string, whenFull: (rest: Buffer) => void): void {
  const bytes = Buffer.from(text, 'utf8');
  let offset = 0;
  while (offset < bytes.length) {
    try {
      offset += writeSync(fd, bytes, offset);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EAGAIN') whenFull(bytes.subarray(offset));
      return;
    }
  }
}
