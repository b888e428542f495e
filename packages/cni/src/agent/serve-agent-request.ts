import { resolve } from 'node:path';
import type { DatastoreConfig } from '@netledger/datastore-config';
import { createIpamClient, formatIpamReport } from '@netledger/ipam-core';
import { CniError, CniErrorCode } from '../cni-error.js';
import type { IpamConf, NetConf } from '../net-conf.js';
import { parseNetConf } from '../net-conf.js';
import { createLogger, silentLogger } from '../logger.js';
import { resolveNodename } from '../nodename.js';
import type { CniRequest } from '../cni-request.js';
import { parseCniRequest } from '../cni-request.js';
import type { HostLock } from '../flock-host-lock.js';
import type { PluginDeps } from '../plugin-deps.js';
import type { PluginInvocation, PluginOutput } from '../run-plugin.js';
import { runCniPlugin } from '../run-plugin.js';
import { handleIdFor } from '../workload-identity.js';
import { observeHandleCreate } from './observe-handle-create.js';

/** What one node agent serves: its node, its socket and its store. */
export interface AgentScope {
  readonly nodename: string;
  readonly socketPath: string;
  /** `storeIdentity` of the agent's store. */
  readonly store: string;
  /** `storeIdentity` of a request's store configuration. */
  readonly storeOf: (config: DatastoreConfig) => string;
}

/** Options of {@link serveAgentRequest}. */
export interface ServeAgentRequestOptions {
  readonly request: PluginInvocation;
  readonly scope: AgentScope;
  /**
   * The plugin's dependencies in the agent: its store (mirrored, opened once; closing it is left
   * to the agent), its IPAM client, the node name sources and the host lock.
   */
  readonly deps: PluginDeps;
  /** Where an answered request's log lines go (the agent's log, `log_file_path`). */
  readonly log: (ipam: IpamConf, line: string) => void;
  /** Aborted when the client is gone: a command that has not started yet is then not run. */
  readonly signal?: AbortSignal;
}

/**
 * What the agent does with a request: answer it, send the client back to run it itself, or not
 * run it (its client went away before it took the host lock: nothing was done, nothing to answer).
 */
export type AgentServeResult =
  | {
      readonly kind: 'answer';
      readonly output: PluginOutput;
      /**
       * Present when the answer still holds the host lock (an ADD): call it once, after writing
       * the answer, saying whether it reached the client. An ADD that allocated (created its
       * handle) and was not delivered is rolled back (its handle released, by compare-and-swap),
       * then the lock is released. Resolves with what was undone, for the log; never rejects.
       */
      readonly settle?: (delivered: boolean) => Promise<string | undefined>;
    }
  | { readonly kind: 'fallback'; readonly reason: string }
  | { readonly kind: 'not-run'; readonly reason: string };

type AnswerResult = Extract<AgentServeResult, { kind: 'answer' }>;

/** One run of the plugin: its output and log lines, and the host lock it may still hold. */
interface Run {
  readonly output: PluginOutput;
  readonly lines: string[];
  /** The client went away before the run took the host lock: the command did nothing. */
  readonly notRun: boolean;
  /** Releases the host lock the run kept (a no-op if it kept none); idempotent. */
  readonly release: () => Promise<void>;
}

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** The addresses of an ADD's result (its stdout), for the log. */
function resultIps(stdout: string): string {
  try {
    const ips = (JSON.parse(stdout) as { ips?: { address?: unknown }[] }).ips ?? [];
    return ips.map((ip) => String(ip.address)).join(', ');
  } catch {
    return '';
  }
}

/** Why the agent does not serve a parsed request (the client then runs it), or undefined. */
async function mismatch(
  conf: NetConf,
  scope: AgentScope,
  deps: PluginDeps,
): Promise<string | undefined> {
  if (resolve(conf.ipam.agentSocket) !== resolve(scope.socketPath)) {
    return `the config names agent_socket ${conf.ipam.agentSocket}`;
  }
  const store = scope.storeOf(conf.ipam.datastore);
  if (store !== scope.store) return `the config's store is ${store}, the agent's ${scope.store}`;
  const nodename = await resolveNodename(conf.ipam, deps);
  if (nodename !== scope.nodename) {
    return `the config's node is ${nodename}, the agent's ${scope.nodename}`;
  }
  return undefined;
}

/** The request and config, or undefined when the plugin would refuse them (it then says why). */
function parsed(request: PluginInvocation): { cni: CniRequest; conf: NetConf } | undefined {
  try {
    const cni = parseCniRequest(request.env);
    if (!cni || cni.command === 'VERSION') return undefined;
    return { cni, conf: parseNetConf(request.stdin, request.env) };
  } catch {
    return undefined;
  }
}

const NOT_RUN = {
  kind: 'not-run',
  reason: 'the client went away before the host lock was taken; nothing done',
} as const;

/** A run's answer (its log lines passed to `o.log` and appended to its stderr), or not run. */
function answer(
  o: ServeAgentRequestOptions,
  r: Run,
  conf: NetConf | undefined,
): AnswerResult | typeof NOT_RUN {
  if (r.notRun) return NOT_RUN;
  if (conf) for (const line of r.lines) o.log(conf.ipam, line);
  return { kind: 'answer', output: { ...r.output, stderr: r.output.stderr + r.lines.join('') } };
}

/** Releases what an undelivered ADD allocated, by its handle, as a DEL would; says what it did. */
async function rollBack(
  deps: PluginDeps,
  add: { readonly conf: NetConf; readonly handleId: string; readonly stdout: string },
): Promise<string> {
  const datastore = await deps.openDatastore(add.conf.ipam.datastore, silentLogger);
  const reports: string[] = [];
  try {
    await createIpamClient({
      datastore,
      report: (r) => void reports.push(formatIpamReport(r)),
    }).releaseByHandle(add.handleId);
    const also = reports.length > 0 ? `; ${reports.join('; ')}` : '';
    return `rolled back: released ${resultIps(add.stdout) || 'its addresses'} (handle ${add.handleId})${also}`;
  } finally {
    await datastore.close();
  }
}

/**
 * Serves one plugin invocation in the node agent by running the plugin itself, `runCniPlugin`
 * with the agent's dependencies, so ADD, DEL, CHECK, GC and STATUS have the exec path's semantics,
 * handles, results and error codes, its host lock included (taken per request at `ipam_lock_file`,
 * so the agent and plugins running in-process on the same host serialise as before).
 *
 * A request is sent back (fallback) when it is not the agent's to serve: its config names another
 * `agent_socket`, another store, or another node. A request the plugin refuses (bad environment,
 * bad config, unsupported version) is answered with the plugin's own error, touching nothing.
 *
 * Log lines of an answered run are passed to `log` and returned as its standard error.
 *
 * An ADD's answer keeps the host lock until the caller settles it (`settle`, after writing the
 * answer): an ADD that allocated and whose answer did not reach its client (it went away) is then
 * rolled back, released by its handle, before any other request on this host can take the lock,
 * so neither a retry nor a client's in-process fallback can interleave with the rollback. A
 * request whose client went away before it took the lock is not run (`not-run`, nothing done,
 * nothing logged to its log file).
 */
export async function serveAgentRequest(o: ServeAgentRequestOptions): Promise<AgentServeResult> {
  /** Runs the plugin; with `hold`, the host lock is kept past the run, until `release`. */
  const run = async (hold: boolean, deps: PluginDeps = o.deps): Promise<Run> => {
    const lines: string[] = [];
    let held: HostLock | undefined;
    let notRun = false;
    const output = await runCniPlugin(
      { env: o.request.env, stdin: o.request.stdin },
      {
        ...deps,
        createLogger: (ipam) =>
          createLogger({
            level: ipam.logLevel,
            format: ipam.logFormat,
            write: (l) => lines.push(l),
          }),
        acquireLock: async (lockOptions) => {
          const lock = await deps.acquireLock(lockOptions);
          if (o.signal?.aborted) {
            await lock?.release();
            notRun = true;
            throw new CniError(CniErrorCode.TryAgainLater, 'the client went away: nothing done');
          }
          if (!hold || !lock) return lock;
          held = lock;
          return { release: async () => undefined }; // released by the run's `release`
        },
      },
    );
    const release = async (): Promise<void> => {
      const lock = held;
      held = undefined;
      await lock?.release();
    };
    return { output, lines, notRun, release };
  };

  const p = parsed(o.request);
  if (!p) return answer(o, await run(false), undefined);
  const why = await mismatch(p.conf, o.scope, o.deps);
  if (why !== undefined) return { kind: 'fallback', reason: why };
  if (p.cni.command !== 'ADD') return answer(o, await run(false), p.conf);
  // An ADD: whether it created its handle (a repeated ADD did not, and is never rolled back).
  const handleId = handleIdFor(p.conf.name, p.cni.containerId, p.cni.ifname);
  const observed = observeHandleCreate(handleId);
  const r = await run(true, {
    ...o.deps,
    openDatastore: async (...args) => observed.wrap(await o.deps.openDatastore(...args)),
  });
  const answered = answer(o, r, p.conf);
  if (answered.kind === 'not-run') return answered;
  return {
    ...answered,
    // Holds the lock until the answer is written: an undelivered ADD is rolled back first.
    settle: async (delivered) => {
      try {
        if (delivered || !observed.created() || r.output.exitCode !== 0) return undefined;
        return await rollBack(o.deps, { conf: p.conf, handleId, stdout: r.output.stdout });
      } catch (e) {
        return `rolling ${handleId} back failed: ${message(e)}`;
      } finally {
        await r.release();
      }
    },
  };
}
