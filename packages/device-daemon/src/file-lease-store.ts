import { join } from 'node:path';
import { readFileIfExists, writeFileAtomic } from './atomic-file.js';
import type { PersistedState } from './lease-codec.js';
import { decodeLeaseFile, encodeLeaseFile } from './lease-codec.js';

/** Where the daemon keeps its leases. */
export interface LeaseStore {
  /** The last saved state, or `undefined` when nothing was ever saved. Throws `LeaseStoreCorrupt`. */
  load(): Promise<PersistedState | undefined>;
  /** Saves the state atomically: after a crash the file holds either the old or the new state. */
  save(state: PersistedState): Promise<void>;
}

/** The name of the lease file inside the data directory. */
export const LEASE_FILE = 'leases.json';

/**
 * A lease store in `dir` (created if missing): `leases.json`, replaced atomically on every save
 * (temp file, fsync, rename, directory fsync), so a `kill -9` or power loss never leaves a torn file.
 */
export function createFileLeaseStore(opts: { readonly dir: string }): LeaseStore {
  return {
    async load() {
      const text = await readFileIfExists(join(opts.dir, LEASE_FILE));
      return text === undefined ? undefined : decodeLeaseFile(text);
    },
    async save(state) {
      await writeFileAtomic({ dir: opts.dir, name: LEASE_FILE, text: encodeLeaseFile(state) });
    },
  };
}
