import { resolve } from 'node:path';
import type { DatastoreConfig } from '@netledger/datastore-config';
import { CniError, CniErrorCode } from '../cni-error.js';
import type { IpamConf, NetConf } from '../net-conf.js';
import { parseNetConf } from '../net-conf.js';
import { createLogger } from '../logger.js';
import { resolveNodename } from '../nodename.js';
import type { CniRequest } from '../cni-request.js';
import { parseCniRequest } from '../cni-request.js';
import { acquireHostLock } from '../host-lock.js';
import type { PluginDeps, PluginOutput } from '../run-plugin.js';
import { runCniPlugin } from '../run-plugin.js';
import { handleIdFor } from '../workload-identity.js';
import type { AgentRequest } from './agent-protocol.js';
import type { PresumingDatastore } from './handle-presumption.js';

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
  readonly request: AgentRequest;
  readonly scope: AgentScope;
  /**
   * The plugin's dependencies in the agent: its store (mirrored, opened once; closing it is left
   * to the agent), its IPAM client, the node name sources and the host lock.
   */
  readonly deps: PluginDeps;
  /** The store under the agent's client, presuming an ADD's handle absent (handle-presumption.ts). */
  readonly presuming?: PresumingDatastore;
  /** Where an answered request's log lines go (the agent's log, `log_file_path`). */
  readonly log: (ipam: IpamConf, line: string) => void;
  /** Aborted when the client is gone: a command that has not started yet is then not run. */
  readonly signal?: AbortSignal;
}

/** What the agent does with a request: answer it, or send the client back to run it itself. */
export type AgentServeResult =
  | {
      readonly kind: 'answer';
      readonly output: PluginOutput;
      /** The ADD ran a second time, reading its handle (the presumption did not hold). */
      readonly redone: boolean;
    }
  | { readonly kind: 'fallback'; readonly reason: string };

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
function parsed(request: AgentRequest): { cni: CniRequest; conf: NetConf } | undefined {
  try {
    const cni = parseCniRequest(request.env);
    if (!cni || cni.command === 'VERSION') return undefined;
    return { cni, conf: parseNetConf(request.stdin, request.env) };
  } catch {
    return undefined;
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
 * ADD runs with its attachment's handle presumed absent (`presuming`), which saves the store read
 * that makes a repeated ADD return what it holds; when the presumption was relied on and did not
 * hold (the handle existed), or the ADD failed before testing it, the ADD is run again the plain
 * way and its answer is the one given. Log lines of an answered run are passed to `log` and
 * returned as its standard error; a redone run's first lines are dropped.
 */
export async function serveAgentRequest(o: ServeAgentRequestOptions): Promise<AgentServeResult> {
  const run = async (): Promise<{ output: PluginOutput; lines: string[] }> => {
    const lines: string[] = [];
    const output = await runCniPlugin(
      { env: o.request.env, stdin: o.request.stdin },
      {
        ...o.deps,
        createLogger: (ipam) => createLogger({ level: ipam.logLevel, write: (l) => lines.push(l) }),
        acquireLock: async (lockOptions) => {
          const lock = await (o.deps.acquireLock ?? acquireHostLock)(lockOptions);
          if (o.signal?.aborted) {
            await lock?.release();
            throw new CniError(CniErrorCode.TryAgainLater, 'the client went away: nothing done');
          }
          return lock;
        },
      },
    );
    return { output, lines };
  };
  const answer = (
    r: { output: PluginOutput; lines: string[] },
    conf: NetConf | undefined,
    redone: boolean,
  ): AgentServeResult => {
    if (conf) for (const line of r.lines) o.log(conf.ipam, line);
    return {
      kind: 'answer',
      output: { ...r.output, stderr: r.output.stderr + r.lines.join('') },
      redone,
    };
  };

  const p = parsed(o.request);
  if (!p) return answer(await run(), undefined, false);
  const why = await mismatch(p.conf, o.scope, o.deps);
  if (why !== undefined) return { kind: 'fallback', reason: why };
  if (p.cni.command !== 'ADD' || !o.presuming) return answer(await run(), p.conf, false);
  const handleId = handleIdFor(p.conf.name, p.cni.containerId, p.cni.ifname);
  const { value: first, presumption } = await o.presuming.presume(handleId, run);
  const redo =
    presumption.consulted &&
    (presumption.outcome === 'refuted' ||
      (presumption.outcome === 'untested' && first.output.exitCode !== 0));
  if (!redo) return answer(first, p.conf, false);
  return answer(await run(), p.conf, true);
}
