import { join } from 'node:path';
import { readFileIfExists, writeFileAtomic } from './atomic-file.js';
import type { RevisionFiles } from './revision.js';
import { decodeRevisionFile, encodeRevisionFile } from './revision-codec.js';

/** Where the daemon keeps the last revision it applied successfully (its last good revision). */
export interface RevisionStore {
  /** The last saved revision, or `undefined` when none was. Throws `LeaseStoreCorrupt`. */
  load(): Promise<RevisionFiles | undefined>;
  /** Saves the revision atomically (the old or the new one survives a crash). */
  save(files: RevisionFiles): Promise<void>;
}

/** The name of the last good revision file inside the data directory, beside the leases. */
const REVISION_FILE = 'last-good-revision.json';

/** A {@link RevisionStore} in `dir`: `last-good-revision.json`, replaced atomically. */
export function createFileRevisionStore(opts: { readonly dir: string }): RevisionStore {
  return {
    async load() {
      const text = await readFileIfExists(join(opts.dir, REVISION_FILE));
      return text === undefined ? undefined : decodeRevisionFile(text);
    },
    async save(files) {
      await writeFileAtomic({
        dir: opts.dir,
        name: REVISION_FILE,
        text: encodeRevisionFile(files),
      });
    },
  };
}
