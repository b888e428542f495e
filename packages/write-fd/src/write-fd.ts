import { writeSync } from 'node:fs';

/**
 * Writes `text` to file descriptor `fd` with write(2) before returning; what a full non-blocking
 * descriptor (EAGAIN) does not take is handed to `whenFull`.
 *
 * A one-shot process writes its output once, so it skips `process.stdout` and `process.stderr`
 * unless it must: the first touch of either builds a stream (for a pipe, a `net.Socket` and the
 * `net` module), a cost paid on every invocation (docs/benchmarks.md, `cni`). Its `whenFull` is
 * that stream, which waits for the reader (Node makes stdio pipes blocking). When the reader is
 * gone (EPIPE, EBADF, ...) the output is dropped: nobody can read it, and the exit status still
 * tells the outcome.
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
