import type { FileDatastoreOptions } from '@netledger/datastore-file';

/**
 * How the agent opens the file store. History: the plugin's 20 past changes, not the library's
 * 100, since every write rewrites the whole file, history included, while ADDs wait for the host
 * lock (a 100-change history made the file about 5 times larger, and each write that much slower);
 * the agent's own watches are fed in memory, and other processes' watches that fall further behind
 * re-list, as the Datastore contract says. Blocking file calls: the agent's writes are serialised
 * anyway (host lock, then the store's), and each call spared a thread-pool round trip costs less
 * than the event loop's wait for it.
 */
export const AGENT_FILE_STORE_OPTIONS = {
  historyLimit: 20,
  blockingIo: true,
} as const satisfies Omit<FileDatastoreOptions, 'path'>;
