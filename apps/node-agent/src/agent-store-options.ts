import type { FileDatastoreOptions } from '@netledger/datastore-file';

/**
 * How the agent opens the file store: with the plugin's 20 past changes, not the library's 100,
 * since every write rewrites the whole file, history included, while ADDs wait for the host lock
 * (a 100-change history made the file about 5 times larger); the agent's own watches are fed in
 * memory, and other processes' watches that fall further behind re-list, as the Datastore contract
 * says. File calls stay on the thread pool: blocking ones spared the agent about 1 ms of CPU per
 * request but, measured side by side, doubled its ADD and DEL latency on a loaded host.
 */
export const AGENT_FILE_STORE_OPTIONS = {
  historyLimit: 20,
} as const satisfies Omit<FileDatastoreOptions, 'path'>;
