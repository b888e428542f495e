import { lstatSync, readFileSync } from 'node:fs';
import type { RecordedFile } from './install-record.js';
import { sha256 } from './install-record.js';

/** Whether a recorded file is still what was written. */
export type RecordedFileState =
  | { readonly kind: 'absent' }
  | { readonly kind: 'ours' }
  | { readonly kind: 'changed'; readonly why: string };

/**
 * Compares the file at a recorded path with the record: `ours` when it is a regular file whose
 * SHA-256 is the recorded one, `absent` when nothing is there, else `changed` saying how.
 */
export function recordedFileState(file: RecordedFile): RecordedFileState {
  let st;
  try {
    st = lstatSync(file.path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'absent' };
    return { kind: 'changed', why: `cannot be read: ${(e as Error).message}` };
  }
  if (!st.isFile()) return { kind: 'changed', why: 'no longer a regular file' };
  const now = sha256(readFileSync(file.path));
  if (now !== file.sha256)
    return { kind: 'changed', why: `sha256 ${now}, netledger wrote ${file.sha256}` };
  return { kind: 'ours' };
}
