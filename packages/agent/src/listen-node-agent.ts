// Where the node agent listens: its metrics endpoint (when asked for), then its socket.
import type { MirroredDatastore } from '@netledger/ipam-core/adapter';
import { AgentListenError } from './agent-listen-error.js';
import type { AgentMetrics } from './agent-metrics.js';
import { startAgentServer } from './agent-server.js';
import type { AgentServer, AgentServerOptions } from './agent-server.js';
import { AgentSocketError } from './agent-socket.js';
import { startMetricsServer } from './metrics-server.js';
import type { MetricsServer } from './metrics-server.js';
import type { NodeAgentLog, NodeAgentOptions } from './start-node-agent.js';

/** What the agent listens on: its socket, and the metrics endpoint when one is asked for. */
export interface Listening {
  readonly server: AgentServer;
  readonly metricsServer: MetricsServer | undefined;
}

/** What listening serves from. */
export interface ListenSources {
  readonly options: NodeAgentOptions;
  readonly log: NodeAgentLog;
  readonly metrics: AgentMetrics;
  readonly mirrored: MirroredDatastore;
  readonly serve: AgentServerOptions['serve'];
}

/** What could not be listened on, as an AgentListenError when it is the host's refusal. */
function listenError(where: string, cause: unknown): unknown {
  const refused =
    cause instanceof AgentSocketError || (cause as NodeJS.ErrnoException).code !== undefined;
  return refused ? new AgentListenError(where, cause) : cause;
}

/**
 * The metrics endpoint (`metricsListen`: /metrics, /healthz, /readyz), then the agent's socket,
 * serving the plugin's requests, its status and its metrics. Rejects with an
 * {@link AgentListenError} naming what could not be listened on (anything else as it came); the
 * endpoint is closed again when the socket fails.
 */
export async function listenNodeAgent(s: ListenSources): Promise<Listening> {
  const { options: o, mirrored } = s;
  let server: AgentServer | undefined;
  const render = () =>
    s.metrics.render({ inFlight: server?.inFlight() ?? 0, synced: mirrored.isSynced() });
  let metricsServer: MetricsServer | undefined;
  if (o.metricsListen) {
    const { host, port } = o.metricsListen;
    const ready = () => mirrored.isSynced();
    const started = await startMetricsServer({ host, port, metrics: render, ready }).catch(
      (e: unknown) => {
        throw listenError(`--metrics-listen ${host}:${port}`, e);
      },
    );
    s.log.info(`metrics, /healthz and /readyz on http://${started.address}`);
    metricsServer = started;
  }
  try {
    server = await startAgentServer({
      socketPath: o.socketPath,
      serve: s.serve,
      status: () => ({
        ready: mirrored.isSynced(),
        nodename: o.nodename,
        store: o.storeName,
        version: o.version,
        ...s.metrics.snapshot(),
      }),
      metrics: render,
      onRequest: (labels, ms) => s.metrics.request(labels, ms),
      log: s.log,
    });
  } catch (e) {
    await metricsServer?.close();
    throw listenError(o.socketPath, e);
  }
  return { server, metricsServer };
}
