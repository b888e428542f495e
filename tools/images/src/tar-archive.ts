/** One entry of a tar archive: a directory, a regular file or a symbolic link. */
export type TarEntry =
  | { readonly kind: 'dir'; readonly path: string; readonly mode: number; readonly owner?: number }
  | {
      readonly kind: 'file';
      readonly path: string;
      readonly mode: number;
      readonly content: Buffer;
      readonly owner?: number;
    }
  | { readonly kind: 'symlink'; readonly path: string; readonly target: string };

const BLOCK = 512;

/** A numeric header field: zero-padded octal, NUL-terminated, `width` bytes in all. */
function octal(value: number, width: number): string {
  const digits = value.toString(8);
  if (digits.length > width - 1) throw new Error(`tar: ${value} does not fit in ${width} bytes`);
  return `${digits.padStart(width - 1, '0')}\0`;
}

/** Splits a path into ustar's `prefix` (155 bytes) and `name` (100 bytes), at a slash. */
function splitName(path: string): { prefix: string; name: string } {
  if (Buffer.byteLength(path) <= 100) return { prefix: '', name: path };
  for (let i = path.indexOf('/'); i !== -1; i = path.indexOf('/', i + 1)) {
    const prefix = path.slice(0, i);
    const name = path.slice(i + 1);
    if (Buffer.byteLength(prefix) <= 155 && Buffer.byteLength(name) <= 100 && name !== '')
      return { prefix, name };
  }
  throw new Error(`tar: ${path} is too long for a ustar header (no PAX headers are written)`);
}

function header(entry: TarEntry, size: number): Buffer {
  const h = Buffer.alloc(BLOCK);
  const put = (offset: number, text: string): void => {
    h.write(text, offset, 'utf8');
  };
  const path = entry.kind === 'dir' ? `${entry.path}/` : entry.path;
  const { prefix, name } = splitName(path);
  const mode = entry.kind === 'symlink' ? 0o777 : entry.mode;
  const owner = entry.kind === 'symlink' ? 0 : (entry.owner ?? 0);
  put(0, name);
  put(100, octal(mode, 8));
  put(108, octal(owner, 8));
  put(116, octal(owner, 8));
  put(124, octal(size, 12));
  put(136, octal(0, 12)); // mtime: the epoch, whatever the files' own
  put(148, '        '); // the checksum counts its own field as spaces
  put(156, { file: '0', dir: '5', symlink: '2' }[entry.kind]);
  if (entry.kind === 'symlink') {
    if (Buffer.byteLength(entry.target) > 100)
      throw new Error(`tar: the link target ${entry.target} is too long`);
    put(157, entry.target);
  }
  put(257, 'ustar\0');
  put(263, '00');
  put(329, octal(0, 8)); // devmajor
  put(337, octal(0, 8)); // devminor
  put(345, prefix);
  let sum = 0;
  for (const byte of h) sum += byte;
  put(148, `${sum.toString(8).padStart(6, '0')}\0 `);
  return h;
}

/**
 * A ustar archive of `entries`, byte for byte the same for the same entries: sorted by path, every
 * time stamp the epoch, owner and group numeric (0 unless given), no user or group names, no PAX
 * headers (a path that does not fit ustar's 255 bytes is refused), ended by two zero blocks.
 * Throws for two entries with one path or a path that is not relative and normalised.
 */
export function createTarArchive(entries: readonly TarEntry[]): Buffer {
  const sorted = [...entries].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const parts: Buffer[] = [];
  for (const [i, entry] of sorted.entries()) {
    if (i > 0 && sorted[i - 1]!.path === entry.path)
      throw new Error(`tar: ${entry.path} is given twice`);
    if (
      entry.path === '' ||
      entry.path.startsWith('/') ||
      entry.path.endsWith('/') ||
      entry.path.split('/').some((p) => p === '' || p === '.' || p === '..')
    )
      throw new Error(`tar: ${JSON.stringify(entry.path)} is not a relative, normalised path`);
    const content = entry.kind === 'file' ? entry.content : Buffer.alloc(0);
    parts.push(header(entry, content.length), content);
    const pad = (BLOCK - (content.length % BLOCK)) % BLOCK;
    if (pad > 0) parts.push(Buffer.alloc(pad));
  }
  parts.push(Buffer.alloc(2 * BLOCK));
  return Buffer.concat(parts);
}
