// Reading an input file or stdin with a bound: past `maxBytes` the read stops and fails `EFBIG`,
// so a huge file (or /dev/zero, or an endless pipe) is refused without being read into memory.
import { open, readFile } from 'node:fs/promises';

/** Options of {@link readTextFile} and {@link readTextStream}. */
export interface BoundedReadOptions {
  /** Fail `EFBIG` once more than this many bytes have been read (default: no bound). */
  readonly maxBytes?: number;
}

const CHUNK = 64 * 1024;

function tooLarge(what: string, maxBytes: number): Error {
  return Object.assign(new Error(`${what}: more than ${maxBytes} bytes`), { code: 'EFBIG' });
}

/**
 * Reads `path` as UTF-8. With `maxBytes`, reads at most `maxBytes + 1` bytes and rejects with an
 * error whose `code` is `EFBIG` when the file holds more; other errors are the file system's
 * (`ENOENT`, `EACCES`, ...).
 */
export async function readTextFile(
  path: string,
  options: BoundedReadOptions = {},
): Promise<string> {
  const { maxBytes } = options;
  if (maxBytes === undefined) return readFile(path, 'utf8');
  const handle = await open(path, 'r');
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buffer = Buffer.alloc(Math.min(CHUNK, maxBytes + 1 - total));
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      chunks.push(buffer.subarray(0, bytesRead));
      total += bytesRead;
      if (total > maxBytes) throw tooLarge(path, maxBytes);
    }
    return Buffer.concat(chunks).toString('utf8');
  } finally {
    await handle.close();
  }
}

/**
 * Reads `stream` (stdin) to its end as UTF-8. With `maxBytes`, stops and rejects `EFBIG` as soon
 * as more than `maxBytes` bytes have arrived.
 */
export async function readTextStream(
  stream: AsyncIterable<Buffer | string>,
  options: BoundedReadOptions = {},
): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    chunks.push(buffer);
    total += buffer.length;
    if (options.maxBytes !== undefined && total > options.maxBytes) {
      throw tooLarge('stdin', options.maxBytes);
    }
  }
  return Buffer.concat(chunks).toString('utf8');
}
