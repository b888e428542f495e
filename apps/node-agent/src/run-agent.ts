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
import type { AgentServer, MetricsServer } from '@netledger/agent';
import { createFlockHostLock, createLogger } from '@netledger/cni';
import { parseLogFormat } from '@netledger/log';
import type { PluginDeps } from '@netledger/cni';
import { appendRequestLog, serveAgentRequest, storeIdentity } from '@netledger/cni/agent';
import type { AgentScope } from '@netledger/cni/agent';
import {
  createDatastoreOpener,
  readEnvSettings,
  resolveDatastoreConfig,
} from '@netledger/datastore-config';
import type { DatastoreConfig, DatastoreOpenerOptions } from '@netledger/datastore-config';
import type { Datastore } from '@netledger/ipam-core';
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
  readonly opener: DatastoreOpenerOptions;
  /** The file store's path when a config names none (the opener's default for this user). */
  readonly defaultFilePath: string;
  readonly readFile: (path: string) => Promise<string | undefined>;
  readonly osHostname: () => string;
  /** The Kubernetes API on the store's connection (`kubeObjectReaderOf`), for pods' annotations. */
  readonly kubeApi: PluginDeps['kubeApi'];
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
  const log = createLogger({ level: args.logLevel, format, write: p.stderr });
  const lockHelper = args.lockHelper ?? p.defaultLockHelpers.find((h) => existsSync(h));
  if (lockHelper === undefined || !existsSync(lockHelper)) {
    return fail(
      EXIT.failure,
      `no static client to hold the host lock at ${args.lockHelper ?? p.defaultLockHelpers.join(' or ')}: install netledger-ipam (netledger-ipam install --bin-dir DIR) or give --lock-helper PATH`,
    );
  }
  let config: DatastoreConfig;
  try {
    config = resolveDatastoreConfig([readEnvSettings(p.env)]);
  } catch (e) {
    return fail(EXIT.usage, message(e));
  }
  const metrics = createAgentMetrics();
  let raw: Datastore;
  try {
    raw = await createDatastoreOpener(p.opener).open(config);
  } catch (e) {
    return fail(EXIT.failure, `cannot open the ${config.type} datastore: ${message(e)}`);
  }
  // Pools, reservations, the IPAM config, Nodes, this node's affinities and the blocks come from
  // a watch-fed mirror, which takes the agent's own writes at once (agent-store.ts).
  const mirrored = createAgentStore(raw, {
    nodename: args.nodename,
    count: (op) => metrics.datastore(op),
    onFallback: (e) => {
      metrics.resync();
      log.warning(`store view out of sync, re-syncing: ${message(e)}`);
    },
  });
  const shared: Datastore = { ...mirrored, close: async () => undefined };
  const scope: AgentScope = {
    nodename: args.nodename,
    socketPath: args.socket,
    store: storeIdentity(config, p.defaultFilePath),
    storeOf: (c) => storeIdentity(c, p.defaultFilePath),
  };
  // flock(2) on each request's ipam_lock_file through one lock helper; the agent's requests queue
  // for it in memory, in arrival order.
  const hostLock = createFlockHostLock({ helper: lockHelper });
  const deps: PluginDeps = {
    openDatastore: async () => shared,
    acquireLock: hostLock.acquire,
    readFile: p.readFile,
    osHostname: p.osHostname,
    ...(p.kubeApi && { kubeApi: () => p.kubeApi!(raw) }),
  };
  try {
    await mirrored.list({ kind: 'IPPool' }); // the first sync
  } catch (e) {
    log.warning(
      `first read of the store failed (serving from the store until it syncs): ${message(e)}`,
    );
  }
  let server: AgentServer | undefined;
  const render = () =>
    metrics.render({ inFlight: server?.inFlight() ?? 0, synced: mirrored.isSynced() });
  let metricsServer: MetricsServer | undefined;
  try {
    if (args.metricsListen) {
      metricsServer = await startMetricsServer({
        ...args.metricsListen,
        metrics: render,
        ready: () => mirrored.isSynced(),
      });
      log.info(`metrics, /healthz and /readyz on http://${metricsServer.address}`);
    }
    server = await startAgentServer({
      socketPath: args.socket,
      serve: (request, signal) =>
        serveAgentRequest({ request, scope, deps, log: appendRequestLog, signal }),
      status: () => ({
        ready: mirrored.isSynced(),
        nodename: args.nodename,
        store: scope.store,
        version: p.version,
        ...metrics.snapshot(),
      }),
      metrics: render,
      onRequest: (labels, ms) => metrics.request(labels, ms),
      log,
    });
  } catch (e) {
    await metricsServer?.close();
    await mirrored.close().catch((c: unknown) => log.warning(`closing the store: ${message(c)}`));
    await hostLock.dispose();
    const where =
      server === undefined && metricsServer === undefined && args.metricsListen
        ? `--metrics-listen ${args.metricsListen.host}:${args.metricsListen.port}`
        : args.socket;
    if (e instanceof AgentSocketError || (e as NodeJS.ErrnoException).code !== undefined)
      return fail(EXIT.failure, `cannot listen on ${where}: ${message(e)}`);
    throw e;
  }
  const running = server;
  log.info(
    `serving node ${args.nodename} on ${args.socket} (${scope.store}, ${mirrored.isSynced() ? 'synced' : 'not synced yet'})`,
  );
  const signal = await p.stopSignal;
  log.info(`${signal}: no new requests; finishing ${running.inFlight()} in flight`);
  const left = await running.stop(DRAIN_MS);
  if (left > 0) log.warning(`${left} request(s) still in flight after ${DRAIN_MS} ms: abandoned`);
  await metricsServer?.close();
  await mirrored.close().catch((e: unknown) => log.warning(`closing the store: ${message(e)}`));
  await hostLock.dispose();
  log.info('stopped');
  return EXIT.ok;
}
