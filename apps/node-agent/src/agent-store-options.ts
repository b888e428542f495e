import type { DatastoreOpenerOptions } from '@netledger/datastore-config';

/**
 * How the agent opens the file store: with the plugin's 20 past changes, not the library's 100,
 * since every write rewrites the whole file, history included, while ADDs wait for the host lock
 * (a 100-change history made the file several times larger); the agent's own watches are fed in
 * memory, and other processes' watches that fall further behind re-list, as the Datastore contract
 * says. File calls are blocking, as in the one-shot plugin: the agent's requests are serialised per
 * host anyway, so nothing else waits on its event loop meanwhile, while each thread-pool round trip
 * costs two wake-ups. Measured side by side with bench/trace-request.ts (ADDs each way,
 * alternating): blocking calls made the agent's ADD faster, idle and under load; the figures of
 * the agent's ADD are in docs/benchmarks.md (`node-agent`).
 */
export const AGENT_FILE_STORE_OPTIONS = {
  historyLimit: 20,
  blockingIo: true,
} as const satisfies DatastoreOpenerOptions['file'];
