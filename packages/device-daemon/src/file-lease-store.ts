import { mkdir, open, readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
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
 * A lease store in `dir` (created if missing): writes a temp file, fsyncs it, renames it over
 * `leases.json` and fsyncs the directory, so a `kill -9` or power loss never leaves a torn file.
 */
export function createFileLeaseStore(opts: { readonly dir: string }): LeaseStore {
  const path = join(opts.dir, LEASE_FILE);
  const tmp = `${path}.tmp`;
  return {
    async load() {
      let text: string;
      try {
        text = await readFile(path, 'utf8');
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw e;
      }
      return decodeLeaseFile(text);
    },
    async save(state) {
      await mkdir(opts.dir, { recursive: true });
      const file = await open(tmp, 'w', 0o600);
      try {
        await file.writeFile(encodeLeaseFile(state));
        await file.sync();
      } finally {
        await file.close();
      }
      await rename(tmp, path);
      const dir = await open(opts.dir, 'r');
      try {
        await dir.sync();
      } finally {
        await dir.close();
      }
    },
  };
}

/** A lease store in memory, for tests and `check`. */
export function createMemoryLeaseStore(initial?: PersistedState): LeaseStore & { saves: number } {
  let current = initial === undefined ? undefined : encodeLeaseFile(initial);
  const store = {
    saves: 0,
    async load() {
      return current === undefined ? undefined : decodeLeaseFile(current);
    },
    async save(state: PersistedState) {
      current = encodeLeaseFile(state);
      store.saves++;
    },
  };
  return store;
}
