// The node agent's metrics, in a prom-client registry of its own: what it did with each CNI
// request (counts and a latency histogram per command), its errors by CNI code, what it asked of
// the store, and its store view's sync state. Served as Prometheus text on its socket's
// GET /metrics and, with --metrics-listen, on TCP (metrics-server.ts).
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * What the agent did with a CNI request: `abandoned` when its client went away before the answer
 * (an ADD it ran is rolled back), `not-run` when the client went away before the request took the
 * host lock (nothing was done).
 */
export type RequestOutcome = 'answered' | 'fallback' | 'refused' | 'abandoned' | 'not-run';

/** One served request's labels; `cniCode` is the CNI error code of an answer that failed. */
export interface RequestLabels {
  readonly command: string;
  readonly client: string;
  readonly outcome: RequestOutcome;
  readonly cniCode?: number;
}

/** The agent's metrics. */
export interface AgentMetrics {
  /** Counts a CNI request by command, client (its User-Agent) and outcome, and times it. */
  request(labels: RequestLabels, ms: number): void;
  /** Counts one request to the store by operation (get, list, create, ...). */
  datastore(operation: string): void;
  /** Counts one re-sync of the store view (its watch broke or its sync failed: a full re-list). */
  resync(): void;
  /** Counters by label set, for the status JSON. */
  snapshot(): {
    requests: Record<string, number>;
    datastoreRequests: Record<string, number>;
    storeResyncs: number;
  };
  /** The Prometheus text exposition, with the point-in-time values given. */
  render(now: { readonly inFlight: number; readonly synced: boolean }): Promise<string>;
  /** The exposition's content type. */
  readonly contentType: string;
}

/** Latency buckets in seconds: a served ADD takes milliseconds, one waiting on the lock seconds. */
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** Creates the agent's metrics (all zero), with Node.js's process metrics beside them. */
export function createAgentMetrics(): AgentMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'netledger_node_requests_total',
    help: 'CNI requests by command, client and outcome.',
    labelNames: ['command', 'client', 'outcome'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'netledger_node_request_duration_seconds',
    help: 'Time to serve a CNI request, from its arrival to its answer, by command and outcome.',
    labelNames: ['command', 'outcome'],
    buckets: BUCKETS,
    registers: [registry],
  });
  const errors = new Counter({
    name: 'netledger_node_request_errors_total',
    help: 'CNI requests answered with an error, by command and CNI error code.',
    labelNames: ['command', 'code'],
    registers: [registry],
  });
  const store = new Counter({
    name: 'netledger_node_datastore_requests_total',
    help: 'Requests sent to the store (watches: once each).',
    labelNames: ['operation'],
    registers: [registry],
  });
  const resyncs = new Counter({
    name: 'netledger_node_store_resyncs_total',
    help: 'Full re-lists of the store view (a broken watch, a failed sync).',
    registers: [registry],
  });
  const inFlight = new Gauge({
    name: 'netledger_node_in_flight',
    help: 'CNI requests being served now.',
    registers: [registry],
  });
  const synced = new Gauge({
    name: 'netledger_node_synced',
    help: '1 when the store view is synced (the agent is ready), else 0.',
    registers: [registry],
  });
  // The status JSON's counts, keyed as before by their label set.
  const byLabels = new Map<string, number>();
  const byOperation = new Map<string, number>();
  let resyncCount = 0;
  return {
    request({ command, client, outcome, cniCode }, ms) {
      requests.inc({ command, client, outcome });
      duration.observe({ command, outcome }, ms / 1000);
      if (cniCode !== undefined) errors.inc({ command, code: String(cniCode) });
      const key = `command=${JSON.stringify(command)},client=${JSON.stringify(client)},outcome="${outcome}"`;
      byLabels.set(key, (byLabels.get(key) ?? 0) + 1);
    },
    datastore(operation) {
      store.inc({ operation });
      byOperation.set(operation, (byOperation.get(operation) ?? 0) + 1);
    },
    resync() {
      resyncs.inc();
      resyncCount++;
    },
    snapshot() {
      return {
        requests: Object.fromEntries(byLabels),
        datastoreRequests: Object.fromEntries(byOperation),
        storeResyncs: resyncCount,
      };
    },
    async render(now) {
      inFlight.set(now.inFlight);
      synced.set(now.synced ? 1 : 0);
      return registry.metrics();
    },
    contentType: registry.contentType,
  };
}
