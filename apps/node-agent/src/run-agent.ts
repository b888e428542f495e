// What netledger-node does between argv and an exit status: read its arguments and the store's
// settings, open the store and the host lock, start the agent (@netledger/agent's startNodeAgent)
// with the plugin's request handling (@netledger/cni/agent), stop it when told to.
import { existsSync } from 'node:fs';
import { AgentListenError, reportAgentStatus, startNodeAgent } from '@netledger/agent';
import { createFlockHostLock, createLogger } from '@netledger/cni';
import { appendRequestLog, serveAgentRequest, storeIdentity } from '@netledger/cni/agent';
import {
  createDatastoreOpener,
  readEnvSettings,
  resolveDatastoreConfig,
} from '@netledger/datastore-config';
import type { DatastoreConfig, DatastoreOpenerOptions } from '@netledger/datastore-config';
import type { Datastore } from '@netledger/ipam-core';
import { LogFormatError, logFormatFromEnv } from '@netledger/log';
import { AgentUsageError, USAGE, parseAgentArgs } from './agent-args.js';
import type { AgentArgs } from './agent-args.js';

/** Exit statuses. */
const EXIT = { ok: 0, failure: 1, usage: 2, noAgent: 3, denied: 4 } as const;
/** The exit status of each outcome of `status` (ok, failure, noAgent, denied). */
const STATUS_EXIT = { ready: 0, 'not-ready': 1, none: 3, denied: 4 } as const;

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
      return STATUS_EXIT[await reportAgentStatus(args.socket, p)];
    case 'run':
      return serveNode(args, p);
  }
}

/** Opens the store, serves the socket until the stop signal, drains, closes. */
async function serveNode(args: RunArgs, p: AgentProcess): Promise<number> {
  const fail = (status: number, text: string): number => {
    p.stderr(`netledger-node: ${text}\n`);
    return status;
  };
  let format;
  try {
    format = logFormatFromEnv(p.env, 'text');
  } catch (e) {
    if (e instanceof LogFormatError) return fail(EXIT.usage, e.message);
    throw e;
  }
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
  const opener = createDatastoreOpener(p.opener);
  let raw: Datastore;
  try {
    raw = await opener.open(config);
  } catch (e) {
    return fail(EXIT.failure, `cannot open the ${config.type} datastore: ${message(e)}`);
  }
  // flock(2) on each request's ipam_lock_file through one lock helper; the agent's requests queue
  // for it in memory, in arrival order.
  const hostLock = createFlockHostLock({ helper: lockHelper });
  const defaultFilePath = await opener.defaultFilePath();
  const scope = {
    nodename: args.nodename,
    socketPath: args.socket,
    store: storeIdentity(config, defaultFilePath),
    storeOf: (c: DatastoreConfig) => storeIdentity(c, defaultFilePath),
  };
  let agent;
  try {
    agent = await startNodeAgent({
      ...args,
      socketPath: args.socket,
      version: p.version,
      datastore: raw,
      storeName: scope.store,
      serveWith: (view) => {
        const deps = {
          openDatastore: async () => view,
          acquireLock: hostLock.acquire,
          readFile: p.readFile,
          osHostname: p.osHostname,
          kubeApi: () => opener.kubernetesReaderOf(raw),
        };
        return (request, signal) =>
          serveAgentRequest({ request, scope, deps, log: appendRequestLog, signal });
      },
      log,
      dispose: () => hostLock.dispose(),
    });
  } catch (e) {
    if (e instanceof AgentListenError) return fail(EXIT.failure, e.message);
    throw e;
  }
  await agent.stop(await p.stopSignal);
  return EXIT.ok;
}
