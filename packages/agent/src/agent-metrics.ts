/** What the agent did with a CNI request (`abandoned`: its client went away before the answer). */
export type RequestOutcome = 'answered' | 'fallback' | 'refused' | 'abandoned';

/** The agent's counters, served as Prometheus text (`GET /metrics`) and in `GET /v1/status`. */
export interface AgentMetrics {
  /** Counts a CNI request by command, client (its User-Agent) and outcome, and its duration. */
  request(labels: { command: string; client: string; outcome: RequestOutcome }, ms: number): void;
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
  /** The Prometheus text exposition; `gauges` adds point-in-time values (in flight, synced). */
  render(gauges: Readonly<Record<string, number>>): string;
}

const label = (v: string): string => v.replace(/[\\"\n]/g, (c) => (c === '\n' ? '\\n' : `\\${c}`));

/** Creates the agent's counters (all zero). */
export function createAgentMetrics(): AgentMetrics {
  const requests = new Map<string, { labels: string; count: number; seconds: number }>();
  const store = new Map<string, number>();
  let resyncs = 0;
  return {
    request({ command, client, outcome }, ms) {
      const labels = `command="${label(command)}",client="${label(client)}",outcome="${outcome}"`;
      const r = requests.get(labels) ?? { labels, count: 0, seconds: 0 };
      r.count++;
      r.seconds += ms / 1000;
      requests.set(labels, r);
    },
    datastore(operation) {
      store.set(operation, (store.get(operation) ?? 0) + 1);
    },
    resync() {
      resyncs++;
    },
    snapshot() {
      return {
        requests: Object.fromEntries([...requests.values()].map((r) => [r.labels, r.count])),
        datastoreRequests: Object.fromEntries(store),
        storeResyncs: resyncs,
      };
    },
    render(gauges) {
      const lines = [
        '# HELP netledger_node_requests_total CNI requests by command, client and outcome.',
        '# TYPE netledger_node_requests_total counter',
        ...[...requests.values()].map(
          (r) => `netledger_node_requests_total{${r.labels}} ${r.count}`,
        ),
        '# HELP netledger_node_request_seconds_total Time spent serving CNI requests.',
        '# TYPE netledger_node_request_seconds_total counter',
        ...[...requests.values()].map(
          (r) => `netledger_node_request_seconds_total{${r.labels}} ${r.seconds}`,
        ),
        '# HELP netledger_node_datastore_requests_total Requests sent to the store (watches: once each).',
        '# TYPE netledger_node_datastore_requests_total counter',
        ...[...store].map(
          ([op, n]) => `netledger_node_datastore_requests_total{operation="${label(op)}"} ${n}`,
        ),
        '# HELP netledger_node_store_resyncs_total Full re-lists of the store view (a broken watch, a failed sync).',
        '# TYPE netledger_node_store_resyncs_total counter',
        `netledger_node_store_resyncs_total ${resyncs}`,
        ...Object.entries(gauges).flatMap(([name, v]) => [
          `# TYPE netledger_node_${name} gauge`,
          `netledger_node_${name} ${v}`,
        ]),
      ];
      return `${lines.join('\n')}\n`;
    },
  };
}
