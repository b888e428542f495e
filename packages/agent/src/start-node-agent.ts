// The node agent's run: its store behind a watch-fed view, its counters, its socket (and metrics
// endpoint) serving the plugin's requests, until it is stopped: drained, then closed.
import type { Datastore } from '@netledger/ipam-core';
import { createAgentMetrics } from './agent-metrics.js';
import type { AgentServerOptions } from './agent-server.js';
import { createAgentStore } from './agent-store.js';
import { listenNodeAgent } from './listen-node-agent.js';
import type { AgentLog } from './request-report.js';

/** The longest a stop waits for requests in flight: the plugin's own bounds (lock, then command). */
const DRAIN_MS = 190_000;

/** Where the agent logs. */
export interface NodeAgentLog extends AgentLog {
  info(msg: string): void;
}

/** Options of {@link startNodeAgent}. */
export interface NodeAgentOptions {
  /** The node it serves. */
  readonly nodename: string;
  /** Its unix socket (absolute). */
  readonly socketPath: string;
  /** Where to serve /metrics, /healthz and /readyz on TCP as well; not at all when absent. */
  readonly metricsListen?: { readonly host: string; readonly port: number };
  /** In its status document. */
  readonly version: string;
  /** The store, open: the agent serves from its own view of it, and closes it when it stops. */
  readonly datastore: Datastore;
  /** The store's identity, in the status document and the log. */
  readonly storeName: string;
  /**
   * How one CNI request is served with `view`, the agent's view of the store (shared by every
   * request: its close does nothing).
   */
  readonly serveWith: (view: Datastore) => AgentServerOptions['serve'];
  readonly log: NodeAgentLog;
  /** Called once, last, when the agent stops or could not start (the host lock's helper). */
  readonly dispose: () => Promise<void>;
}

/** A serving node agent. */
export interface NodeAgent {
  /**
   * Stops on `reason` (a signal's name, for the log): takes no new requests, waits for those in
   * flight (at most the plugin's own bounds; the rest are abandoned, logged), closes the metrics
   * endpoint and the store, then disposes.
   */
  stop(reason: string): Promise<void>;
}

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/**
 * Starts the node agent on an open store: its view of the store (createAgentStore: counted, then
 * mirrored; a failed first sync is logged and requests read the store until it syncs), then the
 * metrics endpoint and the socket. Rejects with an AgentListenError when it cannot listen, or
 * what else went wrong there, after closing the store and disposing: nothing stays open.
 */
export async function startNodeAgent(o: NodeAgentOptions): Promise<NodeAgent> {
  const { log } = o;
  const metrics = createAgentMetrics();
  const mirrored = createAgentStore(o.datastore, {
    nodename: o.nodename,
    count: (op) => metrics.datastore(op),
    onFallback: (e) => {
      metrics.resync();
      log.warning(`store view out of sync, re-syncing: ${message(e)}`);
    },
  });
  const close = async () => {
    await mirrored.close().catch((e: unknown) => log.warning(`closing the store: ${message(e)}`));
    await o.dispose();
  };
  // Each request uses the agent's view, which outlives it.
  const serve = o.serveWith({ ...mirrored, close: async () => undefined });
  try {
    await mirrored.list({ kind: 'IPPool' }); // the first sync
  } catch (e) {
    log.warning(
      `first read of the store failed (serving from the store until it syncs): ${message(e)}`,
    );
  }
  const sources = { options: o, log, metrics, mirrored, serve };
  const { server, metricsServer } = await listenNodeAgent(sources).catch(async (e: unknown) => {
    await close();
    throw e;
  });
  const synced = mirrored.isSynced() ? 'synced' : 'not synced yet';
  log.info(`serving node ${o.nodename} on ${o.socketPath} (${o.storeName}, ${synced})`);
  return {
    async stop(reason) {
      log.info(`${reason}: no new requests; finishing ${server.inFlight()} in flight`);
      const left = await server.stop(DRAIN_MS);
      if (left > 0)
        log.warning(`${left} request(s) still in flight after ${DRAIN_MS} ms: abandoned`);
      await metricsServer?.close();
      await close();
      log.info('stopped');
    },
  };
}
