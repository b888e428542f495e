// What netledger-node does between argv and an exit status: read its arguments and the store's
// settings, open the store once behind a watch-fed mirror, serve the plugin's requests on the
// socket until told to stop, then drain and close.
import { existsSync } from 'node:fs';
import {
  AgentSocketError,
  createAgentMetrics,
  createAgentStore,
  queryAgentStatus,
  startAgentServer,
  startMetricsServer,
} from '@netledger/agent';
import type { AgentMetrics, AgentServer, MetricsServer } from '@netledger/agent';
import { createFlockHostLock, createLogger } from '@netledger/cni';
import type { Logger, PluginDeps } from '@netledger/cni';
import { parseLogFormat } from '@netledger/log';
import { appendRequestLog, serveAgentRequest, storeIdentity } from '@netledger/cni/agent';
import type { AgentScope } from '@netledger/cni/agent';
import {
  createDatastoreOpener,
  readEnvSettings,
  resolveDatastoreConfig,
} from '@netledger/datastore-config';
import type {
  DatastoreConfig,
  DatastoreOpener,
  DatastoreOpenerOptions,
} from '@netledger/datastore-config';
import type { Datastore } from '@netledger/ipam-core';
import type { MirroredDatastore } from '@netledger/ipam-core/adapter';
import { AgentUsageError, USAGE, parseAgentArgs } from './agent-args.js';
import type { AgentArgs } from './agent-args.js';

/** The longest a stop waits for requests in flight: the plugin's own bounds (lock, then command). */
const DRAIN_MS = 190_000;

/** Exit statuses. */
const EXIT = { ok: 0, failure: 1, usage: 2, noAgent: 3, denied: 4 } as const;

/** What the process gives the agent. */
export interface AgentProcess {
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Resolves when the process is told to stop (SIGTERM, SIGINT). */
  readonly stopSignal: Promise<string>;
  /**
   * How stores are opened (`@netledger/datastore-config`): the file store's default path, the
   * Kubernetes API on a Kubernetes store's connection (pods' annotations) come from it too.
   */
  readonly opener: DatastoreOpenerOptions;
  readonly readFile: (path: string) => Promise<string | undefined>;
  readonly osHostname: () => string;
  readonly version: string;
  /** Where the static client (the lock helper) is looked for when `--lock-helper` names none. */
  readonly defaultLockHelpers: readonly string[];
}

type RunArgs = Extract<AgentArgs, { verb: 'run' }>;

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/**
 * Runs `netledger-node`: exit 0 after a requested stop (or --help, --version, or `status` of a
 * synced agent), 1 when the store or the socket cannot be used (or `status` of an agent not
 * synced), 2 for a usage error or a bad store setting, 3 when `status` finds no agent, 4 when
 * `status` may not use the socket (permission denied).
 */
export async function runAgent(p: AgentProcess): Promise<number> {
  let args;
  try {
    args = parseAgentArgs(p.argv);
  } catch (e) {
    if (!(e instanceof AgentUsageError)) throw e;
    p.stderr(`netledger-node: ${e.message}\n\n${USAGE}`);
    return EXIT.usage;
  }
  switch (args.verb) {
    case 'help':
      p.stdout(USAGE);
      return EXIT.ok;
    case 'version':
      p.stdout(`netledger-node ${p.version}\n`);
      return EXIT.ok;
    case 'status':
      return showStatus(args.socket, p);
    case 'run':
      return serveNode(args, p);
  }
}

/** `netledger-node status`: the agent's status document, or why there is none. */
async function showStatus(socket: string, p: AgentProcess): Promise<number> {
  const answer = await queryAgentStatus(socket);
  switch (answer.kind) {
    case 'denied':
      p.stderr(
        `netledger-node: permission denied on ${socket} (${answer.reason}): only the agent's user (root) may ask it\n`,
      );
      return EXIT.denied;
    case 'none':
      p.stderr(`netledger-node: no agent answers on ${socket} (${answer.reason})\n`);
      return EXIT.noAgent;
    case 'status':
      p.stdout(`${JSON.stringify(answer.status)}\n`);
      return answer.status['ready'] === true ? EXIT.ok : EXIT.failure;
  }
}

/** The store as the agent serves it. */
interface AgentStoreView {
  readonly config: DatastoreConfig;
  readonly opener: DatastoreOpener;
  /** The store itself: what the Kubernetes API shares its connection with. */
  readonly raw: Datastore;
  /** The watch-fed view the requests use; closing it closes `raw`. */
  readonly mirrored: MirroredDatastore;
}

/** What serving uses throughout: the arguments, the process, the log, the counters. */
interface Serving {
  readonly args: RunArgs;
  readonly p: AgentProcess;
  readonly log: Logger;
  readonly metrics: AgentMetrics;
  readonly fail: (status: number, text: string) => number;
}

/**
 * Reads the store's settings from the environment and opens the store behind the agent's
 * watch-fed view (pools, reservations, the IPAM config, Nodes, this node's affinities and the
 * blocks, taking the agent's own writes at once: agent-store.ts). An exit status, said on stderr,
 * when the settings are bad (usage) or the store cannot be opened.
 */
async function openAgentStore(s: Serving): Promise<AgentStoreView | number> {
  const { args, p } = s;
  let config: DatastoreConfig;
  try {
    config = resolveDatastoreConfig([readEnvSettings(p.env)]);
  } catch (e) {
    return s.fail(EXIT.usage, message(e));
  }
  const opener = createDatastoreOpener(p.opener);
  let raw: Datastore;
  try {
    raw = await opener.open(config);
  } catch (e) {
    return s.fail(EXIT.failure, `cannot open the ${config.type} datastore: ${message(e)}`);
  }
  const mirrored = createAgentStore(raw, {
    nodename: args.nodename,
    count: (op) => s.metrics.datastore(op),
    onFallback: (e) => {
      s.metrics.resync();
      s.log.warning(`store view out of sync, re-syncing: ${message(e)}`);
    },
  });
  return { config, opener, raw, mirrored };
}

/** Which requests are this agent's (its node, socket and store), and the plugin's dependencies. */
async function requestContext(
  { args, p }: Serving,
  store: AgentStoreView,
  acquireLock: PluginDeps['acquireLock'],
): Promise<{ scope: AgentScope; deps: PluginDeps }> {
  const defaultFilePath = await store.opener.defaultFilePath();
  const scope: AgentScope = {
    nodename: args.nodename,
    socketPath: args.socket,
    store: storeIdentity(store.config, defaultFilePath),
    storeOf: (c) => storeIdentity(c, defaultFilePath),
  };
  // Each request uses the agent's view, which outlives it.
  const shared: Datastore = { ...store.mirrored, close: async () => undefined };
  const deps: PluginDeps = {
    openDatastore: async () => shared,
    acquireLock,
    readFile: p.readFile,
    osHostname: p.osHostname,
    kubeApi: () => store.opener.kubernetesReaderOf(store.raw),
  };
  return { scope, deps };
}

/** What the agent listens on: its socket, and the metrics endpoint when `--metrics-listen` names one. */
interface Listening {
  readonly server: AgentServer;
  readonly metricsServer: MetricsServer | undefined;
}

/**
 * The metrics endpoint (`--metrics-listen`: /metrics, /healthz, /readyz), then the agent's socket,
 * serving the plugin's requests, its status and its metrics. Throws with `where` set to what
 * could not be listened on; the endpoint is closed again when the socket fails.
 */
async function listen(
  s: Serving,
  request: { scope: AgentScope; deps: PluginDeps; mirrored: MirroredDatastore },
): Promise<Listening> {
  const { args, p } = s;
  const { scope, deps, mirrored } = request;
  let server: AgentServer | undefined;
  const render = () =>
    s.metrics.render({ inFlight: server?.inFlight() ?? 0, synced: mirrored.isSynced() });
  let metricsServer: MetricsServer | undefined;
  if (args.metricsListen) {
    const { host, port } = args.metricsListen;
    const started = await startMetricsServer({
      host,
      port,
      metrics: render,
      ready: () => mirrored.isSynced(),
    }).catch((e: unknown) =>
      Promise.reject(new ListenError(`--metrics-listen ${host}:${port}`, e)),
    );
    s.log.info(`metrics, /healthz and /readyz on http://${started.address}`);
    metricsServer = started;
  }
  try {
    server = await startAgentServer({
      socketPath: args.socket,
      serve: (req, signal) =>
        serveAgentRequest({ request: req, scope, deps, log: appendRequestLog, signal }),
      status: () => ({
        ready: mirrored.isSynced(),
        nodename: args.nodename,
        store: scope.store,
        version: p.version,
        ...s.metrics.snapshot(),
      }),
      metrics: render,
      onRequest: (labels, ms) => s.metrics.request(labels, ms),
      log: s.log,
    });
  } catch (e) {
    await metricsServer?.close();
    throw new ListenError(args.socket, e);
  }
  return { server, metricsServer };
}

/** What `listen` could not listen on, and why. */
class ListenError extends Error {
  constructor(
    readonly where: string,
    override readonly cause: unknown,
  ) {
    super(`cannot listen on ${where}: ${message(cause)}`);
  }
}

/** Opens the store, serves the socket until the stop signal, drains, closes. */
async function serveNode(args: RunArgs, p: AgentProcess): Promise<number> {
  const fail = (status: number, text: string): number => {
    p.stderr(`netledger-node: ${text}\n`);
    return status;
  };
  const formatText = p.env['NETLEDGER_LOG_FORMAT'] ?? 'text';
  const format = parseLogFormat(formatText);
  if (format === undefined)
    return fail(EXIT.usage, `NETLEDGER_LOG_FORMAT ${formatText}: not one of text, json`);
  const s: Serving = {
    args,
    p,
    log: createLogger({ level: args.logLevel, format, write: p.stderr }),
    metrics: createAgentMetrics(),
    fail,
  };
  const lockHelper = args.lockHelper ?? p.defaultLockHelpers.find((h) => existsSync(h));
  if (lockHelper === undefined || !existsSync(lockHelper)) {
    return fail(
      EXIT.failure,
      `no static client to hold the host lock at ${args.lockHelper ?? p.defaultLockHelpers.join(' or ')}: install netledger-ipam (netledger-ipam install --bin-dir DIR) or give --lock-helper PATH`,
    );
  }
  const store = await openAgentStore(s);
  if (typeof store === 'number') return store;
  const { mirrored } = store;
  const closeStore = () =>
    mirrored.close().catch((e: unknown) => s.log.warning(`closing the store: ${message(e)}`));
  // flock(2) on each request's ipam_lock_file through one lock helper; the agent's requests queue
  // for it in memory, in arrival order.
  const hostLock = createFlockHostLock({ helper: lockHelper });
  const { scope, deps } = await requestContext(s, store, hostLock.acquire);
  try {
    await mirrored.list({ kind: 'IPPool' }); // the first sync
  } catch (e) {
    s.log.warning(
      `first read of the store failed (serving from the store until it syncs): ${message(e)}`,
    );
  }
  let listening: Listening;
  try {
    listening = await listen(s, { scope, deps, mirrored });
  } catch (e) {
    await closeStore();
    await hostLock.dispose();
    if (!(e instanceof ListenError)) throw e;
    const cause = e.cause;
    if (cause instanceof AgentSocketError || (cause as NodeJS.ErrnoException).code !== undefined)
      return fail(EXIT.failure, e.message);
    throw cause;
  }
  const { server, metricsServer } = listening;
  s.log.info(
    `serving node ${args.nodename} on ${args.socket} (${scope.store}, ${mirrored.isSynced() ? 'synced' : 'not synced yet'})`,
  );
  const signal = await p.stopSignal;
  s.log.info(`${signal}: no new requests; finishing ${server.inFlight()} in flight`);
  const left = await server.stop(DRAIN_MS);
  if (left > 0) s.log.warning(`${left} request(s) still in flight after ${DRAIN_MS} ms: abandoned`);
  await metricsServer?.close();
  await closeStore();
  await hostLock.dispose();
  s.log.info('stopped');
  return EXIT.ok;
}
